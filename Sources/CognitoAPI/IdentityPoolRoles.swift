import AuthCore
import Foundation

/// An identity pool's role-based access control (`SetIdentityPoolRoles`' `RoleMappings`, the developer guide's
/// "Role-based access control"): which role an authenticated identity's credentials are for, per identity provider
/// (keyed `<provider name>:<client id>`). `Token` takes the user pool token's `cognito:preferred_role` (or the
/// `CustomRoleArn` asked for, if the token's `cognito:roles` hold it); `Rules` the first rule a token claim matches;
/// when neither decides, `AmbiguousRoleResolution` does: the pool's authenticated role, or a refusal. Fauxth's
/// credentials name no role, so what an app sees is the refusal, and the checks `SetIdentityPoolRoles` makes.
enum IdentityPoolRoles {
    static let types = ["Token", "Rules"]
    static let resolutions = ["AuthenticatedRole", "Deny"]
    static let matchTypes = ["Equals", "Contains", "StartsWith", "NotEqual"]

    /// `RoleMapping` as the model checks it: a known type, a resolution for both types (required, "If you specify
    /// Token or Rules as the Type, AmbiguousRoleResolution is required"), rules for `Rules`, each complete.
    static func check(_ mappings: [String: JSON]) throws {
        for (provider, mapping) in mappings {
            guard let type = mapping["Type"]?.stringValue, types.contains(type) else {
                throw enumRefusal(mapping["Type"], at: "roleMappings.\(provider).member.type", values: types)
            }
            guard let resolution = mapping["AmbiguousRoleResolution"]?.stringValue else {
                throw CognitoError.invalid("AmbiguousRoleResolution is required when the role mapping's Type is \(type).")
            }
            guard resolutions.contains(resolution) else {
                throw enumRefusal(mapping["AmbiguousRoleResolution"], at: "roleMappings.\(provider).member.ambiguousRoleResolution", values: resolutions)
            }
            guard type == "Rules" else { continue }
            let rules = mapping["RulesConfiguration"]?["Rules"]?.arrayValue ?? []
            guard !rules.isEmpty else { throw CognitoError.invalid("RulesConfiguration is required when the role mapping's Type is Rules.") }
            for rule in rules {
                guard rule["Claim"]?.stringValue?.isEmpty == false, rule["Value"]?.stringValue != nil,
                      rule["RoleARN"]?.stringValue?.hasPrefix("arn:") == true else {
                    throw CognitoError.invalid("Each rule needs a Claim, a Value and a RoleARN.")
                }
                guard let match = rule["MatchType"]?.stringValue, matchTypes.contains(match) else {
                    throw enumRefusal(rule["MatchType"], at: "roleMappings.\(provider).member.rulesConfiguration.rules.member.matchType", values: matchTypes)
                }
            }
        }
    }

    private static func enumRefusal(_ value: JSON?, at path: String, values: [String]) -> CognitoError {
        CognitoError.invalid("1 validation error detected: Value '\(value?.stringValue ?? "null")' at '\(path)' failed to satisfy constraint: "
                             + "Member must satisfy enum value set: [\(values.joined(separator: ", "))]")
    }

    static let denied = CognitoError(.notAuthorized, "The ambiguous role mapping rules denied this request.")

    /// Refuses credentials the pool's mappings deny for an authenticated identity signed in with `logins` (provider
    /// name to the verified token's claims).
    static func checkAccess(_ pool: IdentityPool, logins: [String: [String: JSON]], customRoleArn: String?) throws {
        let mappings = pool.fields["RoleMappings"]?.objectValue ?? [:]
        for (provider, claims) in logins {
            guard let mapping = mappings["\(provider):\(claims["aud"]?.stringValue ?? "")"] ?? mappings[provider] else { continue }
            let decided: String? = switch mapping["Type"]?.stringValue {
            case "Token": fromToken(claims, customRoleArn: customRoleArn)
            case "Rules": fromRules(mapping["RulesConfiguration"]?["Rules"]?.arrayValue ?? [], claims: claims)
            default: nil
            }
            if decided == nil, mapping["AmbiguousRoleResolution"]?.stringValue == "Deny" { throw denied }
        }
    }

    /// The role the token asks for: the `CustomRoleArn` when its `cognito:roles` hold it, else its preferred role.
    static func fromToken(_ claims: [String: JSON], customRoleArn: String?) -> String? {
        let roles = (claims["cognito:roles"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let custom = customRoleArn, !custom.isEmpty { return roles.contains(custom) ? custom : nil }
        return claims["cognito:preferred_role"]?.stringValue
    }

    /// The first rule whose claim matches.
    static func fromRules(_ rules: [JSON], claims: [String: JSON]) -> String? {
        for rule in rules {
            guard let name = rule["Claim"]?.stringValue, let expected = rule["Value"]?.stringValue else { continue }
            let actual = claims[name].map { $0.stringValue ?? $0.serialized() } ?? ""
            let matches = switch rule["MatchType"]?.stringValue {
            case "Equals": actual == expected
            case "Contains": actual.contains(expected)
            case "StartsWith": actual.hasPrefix(expected)
            case "NotEqual": claims[name] != nil && actual != expected
            default: false
            }
            if matches { return rule["RoleARN"]?.stringValue }
        }
        return nil
    }
}
