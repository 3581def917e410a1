import AuthCore
import Foundation

extension LambdaTriggers {
    /// What a pre token generation function changes in the tokens.
    struct TokenOverrides: Sendable {
        var idClaims: [String: JSON] = [:]
        var idSuppressed: [String] = []
        var accessClaims: [String: JSON] = [:]
        var accessSuppressed: [String] = []
        var scopesToAdd: [String] = []
        var scopesToSuppress: [String] = []
        /// `groupOverrideDetails`: `cognito:groups` in both tokens, `cognito:roles` and `cognito:preferred_role` in the ID token.
        var groups: [String]?
        var roles: [String]?
        var preferredRole: String?

        /// The access token's claims and scopes as the function changed them.
        func applyToAccess(_ access: inout [String: JSON], scope: String) {
            Self.apply(accessClaims, suppress: accessSuppressed, to: &access)
            var scopes = scope.split(separator: " ").map(String.init).filter { !scopesToSuppress.contains($0) }
            for added in scopesToAdd where !scopes.contains(added) { scopes.append(added) }
            access["scope"] = .string(scopes.joined(separator: " "))
        }

        /// Claims Cognito keeps its own values of, whatever the function says (in either token).
        static let protected: Set = ["acr", "amr", "at_hash", "aud", "auth_time", "azp", "client_id", "cognito:username", "cognito:groups",
                                     "event_id", "exp", "iat", "identities", "iss", "jti", "nbf", "nonce", "origin_jti", "scope", "sub",
                                     "token_use", "username", "version"]

        /// The claims of one token with the function's changes.
        static func apply(_ add: [String: JSON], suppress: [String], to claims: inout [String: JSON]) {
            for name in suppress where !protected.contains(name) { claims.removeValue(forKey: name) }
            for (name, value) in add where !protected.contains(name) { claims[name] = value }
        }
    }

    /// `PreTokenGeneration`: the claims the tokens will carry (and, from version 2, the access token's
    /// scopes), changed as the function answers. Nil when no function is set.
    func preTokenGeneration(source: String, user: User, clientId: String, scopes: [String], clientMetadata: JSON) async throws -> TokenOverrides? {
        guard let response = try await tokenGeneration(source: source, user: user, clientId: clientId, scopes: scopes, clientMetadata: clientMetadata)
        else { return nil }
        return try Self.overrides(response, version: tokenGenerationVersion)
    }

    /// `TokenGeneration_ClientCredentials`: a machine's access token (the client-credentials grant), which
    /// only a V3_0 function is asked about. The event has no user: its `userName` is the client, its
    /// `userAttributes` and groups are empty.
    func clientCredentialsOverrides(client: CognitoClient, scopes: [String], clientMetadata: JSON) async throws -> TokenOverrides? {
        guard isSet("PreTokenGeneration"), tokenGenerationVersion >= 3 else { return nil }
        let response = try await invoke("PreTokenGeneration", source: "TokenGeneration_ClientCredentials", userName: client.id, clientId: client.id,
                                        request: ["userAttributes": [:], "clientMetadata": clientMetadata, "scopes": .array(scopes.map(JSON.string)),
                                                  "groupConfiguration": ["groupsToOverride": [], "iamRolesToOverride": [], "preferredRole": .null]],
                                        response: ["claimsAndScopeOverrideDetails": .null], version: "3")
        return try Self.overrides(response, version: 3)
    }

    /// The pre token generation function's `response` as it answered, for tokens minted later (the hosted
    /// UI's code grant keeps it with the code); nil when no function is set.
    func tokenGeneration(source: String, user: User, clientId: String, scopes: [String], clientMetadata: JSON) async throws -> [String: JSON]? {
        guard isSet("PreTokenGeneration") else { return nil }
        let version = tokenGenerationVersion
        var request: [String: JSON] = ["userAttributes": Self.userAttributes(user, pool: pool), "clientMetadata": clientMetadata,
                                       "groupConfiguration": ["groupsToOverride": .array(CognitoUsers.groups(user).map(JSON.string)),
                                                              "iamRolesToOverride": [], "preferredRole": .null]]
        if version >= 2 { request["scopes"] = .array(scopes.map(JSON.string)) }
        let key = version >= 2 ? "claimsAndScopeOverrideDetails" : "claimsOverrideDetails"
        let response = try await invoke("PreTokenGeneration", source: source, userName: CognitoUsers.username(user, pool: pool), clientId: clientId,
                                        request: request, response: [key: .null], version: String(version), userId: user.id)
        _ = try Self.overrides(response, version: version) // an answer Cognito cannot read fails now, not at minting
        return response
    }

    /// What a pre token generation function's `response` changes, by event version.
    static func overrides(_ response: [String: JSON], version: Int) throws -> TokenOverrides {
        let key = version >= 2 ? "claimsAndScopeOverrideDetails" : "claimsOverrideDetails"
        var overrides = TokenOverrides()
        guard let details = try Self.object(response[key]) else { return overrides }
        if version >= 2 {
            if let id = try Self.object(details["idTokenGeneration"]) {
                overrides.idClaims = try Self.object(id["claimsToAddOrOverride"]) ?? [:]
                overrides.idSuppressed = try Self.strings(id["claimsToSuppress"]) ?? []
            }
            if let access = try Self.object(details["accessTokenGeneration"]) {
                overrides.accessClaims = try Self.object(access["claimsToAddOrOverride"]) ?? [:]
                overrides.accessSuppressed = try Self.strings(access["claimsToSuppress"]) ?? []
                overrides.scopesToAdd = try Self.strings(access["scopesToAdd"]) ?? []
                overrides.scopesToSuppress = try Self.strings(access["scopesToSuppress"]) ?? []
            }
        } else {
            overrides.idClaims = try Self.object(details["claimsToAddOrOverride"]) ?? [:]
            overrides.idSuppressed = try Self.strings(details["claimsToSuppress"]) ?? []
        }
        if let groups = try Self.object(details["groupOverrideDetails"]) {
            overrides.groups = try Self.strings(groups["groupsToOverride"])
            overrides.roles = try Self.strings(groups["iamRolesToOverride"])
            overrides.preferredRole = try Self.text(groups, "preferredRole")
        }
        return overrides
    }

    private static func object(_ value: JSON?) throws -> [String: JSON]? {
        switch value {
        case nil, .null?: return nil
        case .object(let object)?: return object
        default: throw CognitoError.unrecognizableLambdaOutput
        }
    }

    private static func strings(_ value: JSON?) throws -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard let text = item.stringValue else { throw CognitoError.unrecognizableLambdaOutput }
                return text
            }
        default: throw CognitoError.unrecognizableLambdaOutput
        }
    }
}
