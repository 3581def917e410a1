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
    /// matters to Fauxth: the pre token generation event version is one of the enum.
    static func check(_ config: JSON?) throws {
        guard let version = config?["PreTokenGenerationConfig"]?["LambdaVersion"] else { return }
        guard let name = version.stringValue, tokenGenerationVersions.contains(name) else {
            throw CognitoError.invalid("1 validation error detected: Value '\(version.stringValue ?? version.serialized())' at "
                                       + "'lambdaConfig.preTokenGenerationConfig.lambdaVersion' failed to satisfy constraint: "
                                       + "Member must satisfy enum value set: [\(tokenGenerationVersions.joined(separator: ", "))]")
        }
    }
}

extension CognitoDialect {
    /// A pool's triggers for the control API (`/_emu/v1/tenants/{pool}/hooks/{trigger}`), kept in its
    /// `LambdaConfig`: `{"uri": <ARN or URL>}`, and for `PreTokenGeneration` `"version": "V2_0"` (written
    /// as AWS writes it, in `PreTokenGenerationConfig` and `PreTokenGeneration` both).
    public static let hookSchema = HookSchema(points: LambdaTriggers.points, read: { tenant in
        let config = CognitoPool(tenant: tenant).pool["LambdaConfig"]?.objectValue ?? [:]
        var hooks: [String: JSON] = [:]
        for point in LambdaTriggers.points {
            if point == "PreTokenGeneration", let versioned = config["PreTokenGenerationConfig"], let arn = versioned["LambdaArn"]?.stringValue {
                hooks[point] = ["uri": .string(arn), "version": versioned["LambdaVersion"] ?? "V1_0"]
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
