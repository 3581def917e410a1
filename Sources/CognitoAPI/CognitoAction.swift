import AuthCore
import Foundation
import Hummingbird

/// Every operation of `X-Amz-Target: AWSCognitoIdentityProviderService.<Operation>` that Fauxth serves.
/// Their raw values are the operation names, which fault rules and the audit trail use (`cognito:SignUp`).
enum CognitoAction: String, CaseIterable, Sendable {
    // End users
    case signUp = "SignUp", confirmSignUp = "ConfirmSignUp", resendConfirmationCode = "ResendConfirmationCode"
    case initiateAuth = "InitiateAuth", respondToAuthChallenge = "RespondToAuthChallenge", getTokensFromRefreshToken = "GetTokensFromRefreshToken"
    case forgotPassword = "ForgotPassword", confirmForgotPassword = "ConfirmForgotPassword", changePassword = "ChangePassword"
    case getUser = "GetUser", updateUserAttributes = "UpdateUserAttributes", deleteUserAttributes = "DeleteUserAttributes"
    case getUserAttributeVerificationCode = "GetUserAttributeVerificationCode", verifyUserAttribute = "VerifyUserAttribute"
    case globalSignOut = "GlobalSignOut", revokeToken = "RevokeToken", deleteUser = "DeleteUser"
    case associateSoftwareToken = "AssociateSoftwareToken", verifySoftwareToken = "VerifySoftwareToken"
    case setUserMFAPreference = "SetUserMFAPreference", setUserSettings = "SetUserSettings", getUserAuthFactors = "GetUserAuthFactors"
    case confirmDevice = "ConfirmDevice", getDevice = "GetDevice", listDevices = "ListDevices", updateDeviceStatus = "UpdateDeviceStatus"
    case forgetDevice = "ForgetDevice"
    case startWebAuthnRegistration = "StartWebAuthnRegistration", completeWebAuthnRegistration = "CompleteWebAuthnRegistration"
    case listWebAuthnCredentials = "ListWebAuthnCredentials", deleteWebAuthnCredential = "DeleteWebAuthnCredential"
    // Pools and their resources
    case createUserPool = "CreateUserPool", describeUserPool = "DescribeUserPool", updateUserPool = "UpdateUserPool"
    case deleteUserPool = "DeleteUserPool", listUserPools = "ListUserPools", addCustomAttributes = "AddCustomAttributes"
    case getUserPoolMfaConfig = "GetUserPoolMfaConfig", setUserPoolMfaConfig = "SetUserPoolMfaConfig"
    case createUserPoolClient = "CreateUserPoolClient", describeUserPoolClient = "DescribeUserPoolClient"
    case updateUserPoolClient = "UpdateUserPoolClient", deleteUserPoolClient = "DeleteUserPoolClient", listUserPoolClients = "ListUserPoolClients"
    case createUserPoolDomain = "CreateUserPoolDomain", describeUserPoolDomain = "DescribeUserPoolDomain"
    case updateUserPoolDomain = "UpdateUserPoolDomain", deleteUserPoolDomain = "DeleteUserPoolDomain"
    case createResourceServer = "CreateResourceServer", describeResourceServer = "DescribeResourceServer"
    case updateResourceServer = "UpdateResourceServer", deleteResourceServer = "DeleteResourceServer", listResourceServers = "ListResourceServers"
    case createIdentityProvider = "CreateIdentityProvider", describeIdentityProvider = "DescribeIdentityProvider"
    case updateIdentityProvider = "UpdateIdentityProvider", deleteIdentityProvider = "DeleteIdentityProvider"
    case listIdentityProviders = "ListIdentityProviders", getIdentityProviderByIdentifier = "GetIdentityProviderByIdentifier"
    case tagResource = "TagResource", untagResource = "UntagResource", listTagsForResource = "ListTagsForResource"
    // Groups
    case createGroup = "CreateGroup", getGroup = "GetGroup", updateGroup = "UpdateGroup", deleteGroup = "DeleteGroup", listGroups = "ListGroups"
    case adminAddUserToGroup = "AdminAddUserToGroup", adminRemoveUserFromGroup = "AdminRemoveUserFromGroup"
    case adminListGroupsForUser = "AdminListGroupsForUser", listUsersInGroup = "ListUsersInGroup"
    // Users, as an administrator
    case adminCreateUser = "AdminCreateUser", adminGetUser = "AdminGetUser", adminDeleteUser = "AdminDeleteUser"
    case adminDisableUser = "AdminDisableUser", adminEnableUser = "AdminEnableUser", adminConfirmSignUp = "AdminConfirmSignUp"
    case adminInitiateAuth = "AdminInitiateAuth", adminRespondToAuthChallenge = "AdminRespondToAuthChallenge"
    case adminSetUserPassword = "AdminSetUserPassword", adminResetUserPassword = "AdminResetUserPassword"
    case adminUpdateUserAttributes = "AdminUpdateUserAttributes", adminDeleteUserAttributes = "AdminDeleteUserAttributes"
    case adminSetUserMFAPreference = "AdminSetUserMFAPreference", adminUserGlobalSignOut = "AdminUserGlobalSignOut"
    case adminDeleteSoftwareToken = "AdminDeleteSoftwareToken"
    case adminLinkProviderForUser = "AdminLinkProviderForUser", adminDisableProviderForUser = "AdminDisableProviderForUser"
    case listUsers = "ListUsers"
    case adminGetDevice = "AdminGetDevice", adminListDevices = "AdminListDevices", adminUpdateDeviceStatus = "AdminUpdateDeviceStatus"
    case adminForgetDevice = "AdminForgetDevice"
    case adminSetUserSettings = "AdminSetUserSettings", adminGetUserAuthFactors = "AdminGetUserAuthFactors"
    // User import jobs
    case getCSVHeader = "GetCSVHeader", createUserImportJob = "CreateUserImportJob", startUserImportJob = "StartUserImportJob"
    case describeUserImportJob = "DescribeUserImportJob", listUserImportJobs = "ListUserImportJobs", stopUserImportJob = "StopUserImportJob"

    /// The handler of each operation, one exhaustive switch: a new operation cannot be forgotten.
    var handler: @Sendable (CognitoCall) async throws -> JSON {
        switch self {
        case .signUp: SignUp.signUp
        case .confirmSignUp: SignUp.confirm
        case .resendConfirmationCode: SignUp.resend
        case .adminConfirmSignUp: SignUp.adminConfirm
        case .initiateAuth, .adminInitiateAuth: Auth.initiate
        case .respondToAuthChallenge, .adminRespondToAuthChallenge: Auth.respond
        case .getTokensFromRefreshToken: Auth.tokensFromRefreshToken
        case .forgotPassword: Passwords.forgot
        case .confirmForgotPassword: Passwords.confirmForgot
        case .changePassword: Passwords.change
        case .adminSetUserPassword: Passwords.adminSet
        case .adminResetUserPassword: Passwords.adminReset
        case .getUser: UserSelf.get
        case .updateUserAttributes: UserSelf.updateAttributes
        case .deleteUserAttributes: UserSelf.deleteAttributes
        case .getUserAttributeVerificationCode: UserSelf.verificationCode
        case .verifyUserAttribute: UserSelf.verifyAttribute
        case .deleteUser: UserSelf.delete
        case .globalSignOut: SignOut.global
        case .adminUserGlobalSignOut: SignOut.adminGlobal
        case .revokeToken: SignOut.revoke
        case .associateSoftwareToken: SoftwareToken.associate
        case .verifySoftwareToken: SoftwareToken.verify
        case .setUserMFAPreference, .adminSetUserMFAPreference: SoftwareToken.setPreference
        case .adminDeleteSoftwareToken: SoftwareToken.adminDelete
        case .setUserSettings, .adminSetUserSettings: UserAuthFactors.setSettings
        case .getUserAuthFactors, .adminGetUserAuthFactors: UserAuthFactors.get
        case .createUserPool: PoolAdmin.create
        case .describeUserPool: PoolAdmin.describe
        case .updateUserPool: PoolAdmin.update
        case .deleteUserPool: PoolAdmin.delete
        case .listUserPools: PoolAdmin.list
        case .addCustomAttributes: PoolAdmin.addCustomAttributes
        case .getUserPoolMfaConfig: PoolAdmin.mfaConfig
        case .setUserPoolMfaConfig: PoolAdmin.setMFAConfig
        case .createUserPoolClient: ClientAdmin.create
        case .describeUserPoolClient: ClientAdmin.describe
        case .updateUserPoolClient: ClientAdmin.update
        case .deleteUserPoolClient: ClientAdmin.delete
        case .listUserPoolClients: ClientAdmin.list
        case .createUserPoolDomain, .describeUserPoolDomain, .updateUserPoolDomain, .deleteUserPoolDomain: PoolResources.domain
        case .createResourceServer, .describeResourceServer, .updateResourceServer, .deleteResourceServer, .listResourceServers:
            PoolResources.resourceServer
        case .createIdentityProvider, .describeIdentityProvider, .updateIdentityProvider, .deleteIdentityProvider, .listIdentityProviders:
            PoolResources.identityProvider
        case .getIdentityProviderByIdentifier: PoolResources.identityProviderByIdentifier
        case .tagResource, .untagResource, .listTagsForResource: PoolTags.handle
        case .createGroup, .getGroup, .updateGroup, .deleteGroup, .listGroups: Groups.manage
        case .adminAddUserToGroup, .adminRemoveUserFromGroup, .adminListGroupsForUser, .listUsersInGroup: Groups.membership
        case .adminCreateUser: UserAdmin.create
        case .adminGetUser: UserAdmin.get
        case .adminDeleteUser: UserAdmin.delete
        case .adminDisableUser, .adminEnableUser: UserAdmin.setEnabled
        case .adminUpdateUserAttributes: UserAdmin.updateAttributes
        case .adminDeleteUserAttributes: UserAdmin.deleteAttributes
        case .adminLinkProviderForUser: UserAdmin.linkProvider
        case .adminDisableProviderForUser: UserAdmin.disableProvider
        case .listUsers: ListUsers.handle
        case .confirmDevice: Devices.confirm
        case .getDevice, .adminGetDevice: Devices.get
        case .listDevices, .adminListDevices: Devices.list
        case .updateDeviceStatus, .adminUpdateDeviceStatus: Devices.updateStatus
        case .forgetDevice, .adminForgetDevice: Devices.forget
        case .startWebAuthnRegistration: WebAuthnCredentials.start
        case .completeWebAuthnRegistration: WebAuthnCredentials.complete
        case .listWebAuthnCredentials: WebAuthnCredentials.list
        case .deleteWebAuthnCredential: WebAuthnCredentials.delete
        case .getCSVHeader: UserImport.header
        case .createUserImportJob: UserImport.create
        case .startUserImportJob: UserImport.start
        case .describeUserImportJob: UserImport.describe
        case .listUserImportJobs: UserImport.list
        case .stopUserImportJob: UserImport.stop
        }
    }

    /// The per-IP policy the action counts against: sign-ins and token requests, the actions that
    /// check a code, and those that send one.
    var requestLimit: PolicyLimit? {
        switch self {
        case .initiateAuth, .adminInitiateAuth, .respondToAuthChallenge, .adminRespondToAuthChallenge, .getTokensFromRefreshToken: .tokenPerIP
        case .confirmSignUp, .confirmForgotPassword, .verifyUserAttribute, .verifySoftwareToken: .verifyPerIP
        case .signUp, .resendConfirmationCode, .forgotPassword, .getUserAttributeVerificationCode: .otpPerIP
        default: nil
        }
    }
}
