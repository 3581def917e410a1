import AuthCore
import Foundation
import HTTPSupport

/// `TagResource`, `UntagResource` and `ListTagsForResource` on a pool's ARN (`DescribeUserPool`'s `Arn`,
/// `arn:aws:cognito-idp:<region>:<account>:userpool/<pool id>`), which is what infrastructure tools call to tag a pool.
/// The tags are the pool's `UserPoolTags`, which `CreateUserPool` and `UpdateUserPool` set as well, so Fauxth's own
/// (`fauxth:fixed_code`, `fauxth:lambda_endpoint`) can be set this way too.
enum PoolTags {
    static func handle(_ call: CognitoCall) async throws -> JSON {
        let poolId = try Self.poolId(try call.body.required("ResourceArn"))
        switch call.action {
        case .listTagsForResource:
            return ["Tags": try call.pools.pool(poolId).pool["UserPoolTags"] ?? [:]]
        case .tagResource:
            guard let tags = try call.body.object("Tags") else { throw CognitoBody.missing("Tags") }
            for (key, value) in tags {
                guard (1...128).contains(key.count), let text = value.stringValue, text.count <= 256 else {
                    throw CognitoError.invalid("A tag's key must have 1 to 128 characters and its value a string of at most 256.")
                }
            }
            try change(poolId, call) { $0.merge(tags) { $1 } }
        default:
            let keys = try call.body.strings("TagKeys") ?? []
            try change(poolId, call) { tags in for key in keys { tags.removeValue(forKey: key) } }
        }
        return [:]
    }

    /// The pool an ARN names; an ARN of anything but a user pool is refused.
    static func poolId(_ arn: String) throws -> String {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "arn", parts[2] == "cognito-idp", parts[5].hasPrefix("userpool/"), parts[5].count > "userpool/".count else {
            throw CognitoError.invalid("\(arn) is not the ARN of a user pool.")
        }
        return String(parts[5].dropFirst("userpool/".count))
    }

    /// Changes the pool's tags in place; AWS allows a pool fifty.
    private static func change(_ poolId: String, _ call: CognitoCall, _ edit: (inout [String: JSON]) -> Void) throws {
        try call.pools.update(poolId) { settings in
            var pool = settings["pool"]?.objectValue ?? [:]
            var tags = pool["UserPoolTags"]?.objectValue ?? [:]
            edit(&tags)
            guard tags.count <= 50 else { throw CognitoError.invalid("A user pool can have at most 50 tags.") }
            pool["UserPoolTags"] = .object(tags)
            settings["pool"] = .object(pool)
        }
    }
}
