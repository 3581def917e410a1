import AuthCore
import Foundation

/// Cognito identity pools: `X-Amz-Target: AWSCognitoIdentityService.<Operation>`, JSON 1.1 on the same port as the user
/// pools, so Amplify (`identityPoolEndpoint`) and boto3 (`cognito-identity` with the same endpoint URL) reach it.
///
/// An identity pool lives in the settings of the user pool it names (`identity_pools`, in `DescribeIdentityPool`'s
/// shape with `Roles` and `RoleMappings` beside): seeds declare it there, and it is snapshotted, reset and deleted with
/// that pool. Its identities are rows of the store (`Emulator.poolIdentity`). What an identity is given is what an app
/// needs to go on: an identity id and temporary credentials in AWS's shape, which no AWS service here checks.
enum IdentityPoolAction: String, CaseIterable, Sendable {
    case getId = "GetId", getCredentialsForIdentity = "GetCredentialsForIdentity"
    case createIdentityPool = "CreateIdentityPool", describeIdentityPool = "DescribeIdentityPool", updateIdentityPool = "UpdateIdentityPool"
    case deleteIdentityPool = "DeleteIdentityPool", listIdentityPools = "ListIdentityPools"
    case setIdentityPoolRoles = "SetIdentityPoolRoles", getIdentityPoolRoles = "GetIdentityPoolRoles"
    case listIdentities = "ListIdentities", describeIdentity = "DescribeIdentity", deleteIdentities = "DeleteIdentities"

    static let targetPrefix = "AWSCognitoIdentityService."

    var handler: @Sendable (IdentityPoolCall) throws -> JSON {
        switch self {
        case .getId: IdentityPoolCredentials.getId
        case .getCredentialsForIdentity: IdentityPoolCredentials.credentials
        case .createIdentityPool: IdentityPools.create
        case .describeIdentityPool: IdentityPools.describe
        case .updateIdentityPool: IdentityPools.update
        case .deleteIdentityPool: IdentityPools.delete
        case .listIdentityPools: IdentityPools.list
        case .setIdentityPoolRoles: IdentityPools.setRoles
        case .getIdentityPoolRoles: IdentityPools.roles
        case .listIdentities: IdentityPools.listIdentities
        case .describeIdentity: IdentityPools.describeIdentity
        case .deleteIdentities: IdentityPools.deleteIdentities
        }
    }
}

/// One identity pool request as a handler sees it.
struct IdentityPoolCall: Sendable {
    let body: CognitoBody
    let emulator: Emulator
    let pools: CognitoPools
    let requestId: String

    /// The pool `IdentityPoolId` names.
    func identityPool() throws -> IdentityPool { try IdentityPool.find(try IdentityPool.checkedId(try body.required("IdentityPoolId")), pools) }
}
