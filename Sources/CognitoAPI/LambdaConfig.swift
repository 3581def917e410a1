import AuthCore
import Foundation

extension CognitoPool {
    /// Where this pool's Lambda ARNs are invoked, when it says: `lambda_endpoint` in the seed, or the pool
    /// tag `fauxth:lambda_endpoint` (which a script creating pools with boto3 can set).
    var lambdaEndpoint: String? { settings["lambda_endpoint"]?.stringValue ?? pool["UserPoolTags"]?["fauxth:lambda_endpoint"]?.stringValue }
}

extension LambdaTriggers {
    /// `PreTokenGenerationConfig.LambdaVersion`'s values, in the order AWS's validation message lists them.
    static let tokenGenerationVersions = ["V2_0", "V1_0", "V3_0"]

    /// A function a trigger can name: a Lambda ARN, a bare function name (for the Lambda endpoint), or a URL.
    static func isFunction(_ value: String) -> Bool {
        value.hasPrefix("http://") || value.hasPrefix("https://") || value.hasPrefix("arn:")
            || (!value.isEmpty && value.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    /// `CreateUserPool`'s and `UpdateUserPool`'s `LambdaConfig`, checked as the model checks it where it
    /// matters to Fauxth: the pre token generation event version is one of the enum; a custom sender has
    /// its ARN and version `V1_0`, and the pool a KMS key ARN to encrypt its codes with.
    static func check(_ config: JSON?) throws {
        if let version = config?["PreTokenGenerationConfig"]?["LambdaVersion"] {
            guard let name = version.stringValue, tokenGenerationVersions.contains(name) else {
                throw CognitoError.invalid("1 validation error detected: Value '\(version.stringValue ?? version.serialized())' at "
                                           + "'lambdaConfig.preTokenGenerationConfig.lambdaVersion' failed to satisfy constraint: "
                                           + "Member must satisfy enum value set: [\(tokenGenerationVersions.joined(separator: ", "))]")
            }
        }
        let senders = Self.senders.filter { config?[$0] != nil && config?[$0] != .null }
        for sender in senders {
            let member = "lambdaConfig.c" + sender.dropFirst()
            for key in ["LambdaArn", "LambdaVersion"] where (config?[sender]?[key]?.stringValue ?? "").isEmpty {
                throw CognitoError.invalid("1 validation error detected: Value null at '\(member).\(key.prefix(1).lowercased() + key.dropFirst())' "
                                           + "failed to satisfy constraint: Member must not be null")
            }
            if let version = config?[sender]?["LambdaVersion"]?.stringValue, version != "V1_0" {
                throw CognitoError.invalid("1 validation error detected: Value '\(version)' at '\(member).lambdaVersion' failed to satisfy "
                                           + "constraint: Member must satisfy enum value set: [V1_0]")
            }
        }
        if let key = config?["KMSKeyID"]?.stringValue, !(20...2048).contains(key.utf8.count) {
            // The model's bounds; past 65,535 bytes the key's ARN no longer fits the encrypted code's header either.
            throw CognitoError.invalid("1 validation error detected: Value '\(key.prefix(64))' at 'lambdaConfig.kMSKeyID' failed to satisfy "
                                       + "constraint: Member must have length \(key.utf8.count < 20 ? "greater than or equal to 20" : "less than or equal to 2048")")
        }
        if let key = config?["KMSKeyID"]?.stringValue, key.wholeMatch(of: kmsKeyPattern) == nil {
            throw CognitoError.invalid("1 validation error detected: Value '\(key)' at 'lambdaConfig.kMSKeyID' failed to satisfy constraint: "
                                       + "Member must satisfy regular expression pattern: \(kmsKeyPatternText)")
        }
        if !senders.isEmpty, (config?["KMSKeyID"]?.stringValue ?? "").isEmpty {
            throw CognitoError.invalid("KMSKeyID is required when \(senders.joined(separator: " or ")) is set: "
                                       + "Cognito encrypts the codes it hands a custom sender with that KMS key.")
        }
    }

    /// The pattern the model gives `KMSKeyID`: a KMS key ARN.
    static let kmsKeyPatternText = #"arn:[\w+=/,.@-]+:[\w+=/,.@-]+:([\w+=/,.@-]*)?:[0-9]+:[\w+=/,.@-]+(:[\w+=/,.@-]+)?(:[\w+=/,.@-]+)?"#
    /// `\w` as AWS's (Java's) patterns mean it, ASCII letters, digits and `_`, not any script's word characters.
    nonisolated(unsafe) static let kmsKeyPattern = try! Regex(kmsKeyPatternText).asciiOnlyWordCharacters()
}

extension CognitoDialect {
    /// A pool's triggers for the control API (`/_emu/v1/tenants/{pool}/hooks/{trigger}`), kept in its
    /// `LambdaConfig`: `{"uri": <ARN or URL>}`, and for `PreTokenGeneration` `"version": "V2_0"` (written
    /// as AWS writes it, in `PreTokenGenerationConfig` and `PreTokenGeneration` both).
    public static let hookSchema = HookSchema(points: LambdaTriggers.points, read: { tenant in
        let config = CognitoPool(tenant: tenant).lambdaConfig
        var hooks: [String: JSON] = [:]
        for point in LambdaTriggers.points {
            if point == "PreTokenGeneration", let versioned = config["PreTokenGenerationConfig"], let arn = versioned["LambdaArn"]?.stringValue {
                hooks[point] = ["uri": .string(arn), "version": versioned["LambdaVersion"] ?? "V1_0"]
            } else if LambdaTriggers.senders.contains(point), let arn = config[point]?["LambdaArn"]?.stringValue {
                hooks[point] = ["uri": .string(arn), "kms_key_id": config["KMSKeyID"] ?? .null]
            } else if let uri = config[point]?.stringValue {
                hooks[point] = ["uri": .string(uri)]
            }
        }
        return hooks
    }, write: { tenant, point, hook in
        var settings = tenant.settings
        var pool = settings["pool"]?.objectValue ?? [:]
        var config = pool["LambdaConfig"]?.objectValue ?? [:]
        if let hook {
            let uri = hook["uri"]?.stringValue ?? ""
            guard LambdaTriggers.isFunction(uri) else {
                throw AuthError.invalidInput(field: "uri", reason: "must be a Lambda function ARN (arn:aws:lambda:…) or an http(s):// URL")
            }
            config[point] = .string(uri)
            if LambdaTriggers.senders.contains(point) {
                // A sender is `{LambdaArn, LambdaVersion}` beside the pool's one KMS key.
                config[point] = ["LambdaArn": .string(uri), "LambdaVersion": "V1_0"]
                if let key = hook["kms_key_id"]?.stringValue { config["KMSKeyID"] = .string(key) }
                guard let key = config["KMSKeyID"]?.stringValue, key.wholeMatch(of: LambdaTriggers.kmsKeyPattern) != nil else {
                    throw AuthError.invalidInput(field: "kms_key_id", reason: "must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>): "
                                                 + "Cognito encrypts the codes it hands \(point) with it")
                }
            }
            if point == "PreTokenGeneration" {
                let version = hook["version"]?.stringValue ?? "V1_0"
                guard LambdaTriggers.tokenGenerationVersions.contains(version) else { throw AuthError.invalidInput(field: "version", reason: "must be V1_0, V2_0 or V3_0") }
                config["PreTokenGenerationConfig"] = ["LambdaArn": .string(uri), "LambdaVersion": .string(version)]
            }
        } else {
            config.removeValue(forKey: point)
            if point == "PreTokenGeneration" { config.removeValue(forKey: "PreTokenGenerationConfig") }
        }
        pool["LambdaConfig"] = .object(config)
        settings["pool"] = .object(pool)
        return settings
    })
}
