import AuthCore
import Foundation
import HTTPTypes
import Hummingbird

/// User pools: create, describe, update, delete, list, custom attributes and the MFA configuration.
/// A pool is a core tenant whose settings keep the pool in `CreateUserPool`'s own shape.
enum PoolAdmin {
    /// The members `UpdateUserPool` replaces (unset ones go back to their defaults, as in Cognito); the
    /// sign-in attributes and the schema cannot change after creation.
    static let updatable: Set = ["Policies", "DeletionProtection", "LambdaConfig", "AutoVerifiedAttributes", "SmsVerificationMessage",
                                 "EmailVerificationMessage", "EmailVerificationSubject", "VerificationMessageTemplate",
                                 "SmsAuthenticationMessage", "UserAttributeUpdateSettings", "MfaConfiguration", "DeviceConfiguration",
                                 "EmailConfiguration", "SmsConfiguration", "UserPoolTags", "AdminCreateUserConfig", "UserPoolAddOns",
                                 "AccountRecoverySetting", "UserPoolTier"]

    static let defaultPasswordPolicy: JSON = ["MinimumLength": 8, "RequireUppercase": true, "RequireLowercase": true, "RequireNumbers": true,
                                              "RequireSymbols": true, "TemporaryPasswordValidityDays": 7]

    static func create(_ call: CognitoCall) async throws -> JSON {
        let name = try call.body.required("PoolName")
        var pool = call.body.fields.filter { $0.key != "PoolName" }
        pool["Schema"] = .array(try (call.body["Schema"]?.arrayValue ?? []).map(schemaAttribute))
        pool = withDefaults(pool)
        let now = call.emulator.clock.now.timeIntervalSince1970
        pool["CreationDate"] = .double(now)
        pool["LastModifiedDate"] = .double(now)
        let region = (call.request.headers[.authorization]).flatMap(Self.region(fromSignature:)) ?? "us-east-1"
        let id = CognitoPool.newID(region: region, generator: call.emulator.generator)
        let tenant = try call.emulator.createTenant(id: id, dialect: .cognito, name: name, settings: ["pool": .object(pool)])
        return ["UserPool": try describeJSON(CognitoPool(tenant: tenant), emulator: call.emulator)]
    }

    /// The region a SigV4 `Authorization` header is scoped to (`Credential=…/<date>/<region>/cognito-idp/…`).
    static func region(fromSignature header: String) -> String? {
        header.firstMatch(of: #/Credential=[^/]+/\d{8}/([a-z0-9-]+)/cognito-idp/#).map { String($0.1) }
    }

    static func withDefaults(_ pool: [String: JSON]) -> [String: JSON] {
        var pool = pool
        var policies = pool["Policies"]?.objectValue ?? [:]
        var password = defaultPasswordPolicy.objectValue ?? [:]
        password.merge(policies["PasswordPolicy"]?.objectValue ?? [:]) { $1 }
        policies["PasswordPolicy"] = .object(password)
        pool["Policies"] = .object(policies)
        pool["MfaConfiguration"] = pool["MfaConfiguration"] ?? "OFF"
        // A pool made with MFA on and an SMS role sends MFA codes by SMS, as CreateUserPool sets it up.
        if pool["MfaConfiguration"]?.stringValue != "OFF", pool["SmsMfaConfiguration"] == nil, let sms = pool["SmsConfiguration"] {
            var config: [String: JSON] = ["SmsConfiguration": sms]
            config["SmsAuthenticationMessage"] = pool["SmsAuthenticationMessage"]
            pool["SmsMfaConfiguration"] = .object(config)
        }
        pool["LambdaConfig"] = pool["LambdaConfig"] ?? [:]
        pool["VerificationMessageTemplate"] = pool["VerificationMessageTemplate"] ?? ["DefaultEmailOption": "CONFIRM_WITH_CODE"]
        var admin = pool["AdminCreateUserConfig"]?.objectValue ?? [:]
        admin["AllowAdminCreateUserOnly"] = admin["AllowAdminCreateUserOnly"] ?? false
        pool["AdminCreateUserConfig"] = .object(admin)
        pool["DeletionProtection"] = pool["DeletionProtection"] ?? "INACTIVE"
        pool["UserPoolTier"] = pool["UserPoolTier"] ?? "ESSENTIALS"
        return pool
    }

    /// `UserPoolType`: the stored pool with its id, name, dates, ARN, domain and user count.
    static func describeJSON(_ pool: CognitoPool, emulator: Emulator) throws -> JSON {
        // A seeded pool may leave out what CreateUserPool would have defaulted.
        var o = withDefaults(pool.pool)
        o["Id"] = .string(pool.id)
        o["Name"] = .string(pool.tenant.name)
        o["Arn"] = .string("arn:aws:cognito-idp:\(pool.region):000000000000:userpool/\(pool.id)")
        o["CreationDate"] = o["CreationDate"] ?? .double(pool.tenant.createdAt.timeIntervalSince1970)
        o["LastModifiedDate"] = o["LastModifiedDate"] ?? .double(pool.tenant.createdAt.timeIntervalSince1970)
        o["EstimatedNumberOfUsers"] = .int(try emulator.userCount(in: pool.id))
        o["Domain"] = pool.domain.map(JSON.string)
        o["SchemaAttributes"] = .array(schema(pool.pool))
        return .object(o)
    }

    /// A `Schema` entry as the pool keeps it: a name that is not a standard attribute is a custom one,
    /// and gets its `custom:` prefix.
    static func schemaAttribute(_ attribute: JSON) throws -> JSON {
        guard var o = attribute.objectValue, let name = o["Name"]?.stringValue, !name.isEmpty else {
            throw CognitoError.invalid("Attribute name is required in the schema")
        }
        let standard = CognitoUsers.standardAttributes.union(["sub", "email", "email_verified", "phone_number", "phone_number_verified"])
        if !standard.contains(name), !name.hasPrefix("custom:") { o["Name"] = .string("custom:\(name)") }
        o["AttributeDataType"] = o["AttributeDataType"] ?? "String"
        o["Mutable"] = o["Mutable"] ?? true
        o["Required"] = o["Required"] ?? false
        return .object(o)
    }

    /// The standard attributes every pool has (as the pool's `Schema` overrides them), then its
    /// custom ones.
    static func schema(_ pool: [String: JSON]) -> [JSON] {
        let own = pool["Schema"]?.arrayValue ?? []
        func override(_ name: String) -> JSON? { own.first { $0["Name"]?.stringValue == name } }
        var attributes: [JSON] = ["sub", "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile",
                                  "picture", "website", "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale",
                                  "phone_number", "phone_number_verified", "address", "updated_at"].map { name in
            let type = name.hasSuffix("_verified") ? "Boolean" : (name == "updated_at" ? "Number" : "String")
            return override(name) ?? ["Name": .string(name), "AttributeDataType": .string(type), "Mutable": .bool(name != "sub"), "Required": .bool(name == "sub")]
        }
        attributes += own.filter { $0["Name"]?.stringValue?.hasPrefix("custom:") == true }
        return attributes
    }

    static func describe(_ call: CognitoCall) async throws -> JSON {
        ["UserPool": try describeJSON(try call.pool(), emulator: call.emulator)]
    }

    static func update(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        try call.pools.update(poolId) { settings in
            var pool = (settings["pool"]?.objectValue ?? [:]).filter { !updatable.contains($0.key) }
            pool.merge(call.body.fields.filter { updatable.contains($0.key) }) { $1 }
            pool = withDefaults(pool)
            pool["LastModifiedDate"] = .double(call.emulator.clock.now.timeIntervalSince1970)
            settings["pool"] = .object(pool)
        }
        if let name = try call.body.string("PoolName") {
            try call.emulator.updateTenant(poolId, name: name, settings: try call.pools.pool(poolId).settings)
        }
        return [:]
    }

    static func delete(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        guard pool.pool["DeletionProtection"]?.stringValue != "ACTIVE" else {
            throw CognitoError.invalid("The user pool \(pool.id) cannot be deleted because deletion protection is activated.")
        }
        try call.emulator.deleteTenant(pool.id)
        return [:]
    }

    static func list(_ call: CognitoCall) async throws -> JSON {
        let paging = try Paging(call, .userPools, scope: "ListUserPools")
        let (page, next) = paging.page(try call.pools.all(), key: \.id)
        return paging.answer("UserPools", page.map { pool in
            ["Id": .string(pool.id), "Name": .string(pool.tenant.name), "LambdaConfig": pool.pool["LambdaConfig"] ?? [:],
             "CreationDate": pool.pool["CreationDate"] ?? .double(pool.tenant.createdAt.timeIntervalSince1970),
             "LastModifiedDate": pool.pool["LastModifiedDate"] ?? .double(pool.tenant.createdAt.timeIntervalSince1970)]
        }, next: next)
    }

    static func addCustomAttributes(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        let added = call.body["CustomAttributes"]?.arrayValue ?? []
        try call.pools.update(poolId) { settings in
            var pool = settings["pool"]?.objectValue ?? [:]
            var schema = pool["Schema"]?.arrayValue ?? []
            for attribute in added {
                guard var o = attribute.objectValue, let name = o["Name"]?.stringValue, !name.isEmpty else {
                    throw CognitoError.invalid("Custom attribute name is required")
                }
                // Added attributes are custom even when their name is a standard one's.
                if !name.hasPrefix("custom:") { o["Name"] = .string("custom:\(name)") }
                let full = try schemaAttribute(.object(o))
                guard !schema.contains(where: { $0["Name"] == full["Name"] }) else {
                    throw CognitoError.invalid("Existing attribute already has name \(full["Name"]?.stringValue ?? name).")
                }
                schema.append(full)
            }
            pool["Schema"] = .array(schema)
            settings["pool"] = .object(pool)
        }
        return [:]
    }

    static func mfaConfig(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        var answer: [String: JSON] = ["MfaConfiguration": .string(pool.mfaConfiguration),
                                      "SoftwareTokenMfaConfiguration": ["Enabled": .bool(pool.pool["SoftwareTokenMfaConfiguration"]?["Enabled"]?.boolValue ?? false)]]
        answer["SmsMfaConfiguration"] = pool.pool["SmsMfaConfiguration"]
        answer["EmailMfaConfiguration"] = pool.pool["EmailMfaConfiguration"]
        return .object(answer)
    }

    static func setMFAConfig(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        try call.pools.update(poolId) { settings in
            var pool = settings["pool"]?.objectValue ?? [:]
            for key in ["SmsMfaConfiguration", "SoftwareTokenMfaConfiguration", "EmailMfaConfiguration", "MfaConfiguration"] {
                if let value = call.body[key] { pool[key] = value }
            }
            settings["pool"] = .object(pool)
        }
        return try await mfaConfig(call)
    }
}
