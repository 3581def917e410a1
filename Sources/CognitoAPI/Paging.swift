import AuthCore
import Foundation
import HTTPSupport

/// One page of a list operation, paged as AWS pages them: the page size (`Limit` or `MaxResults`) within
/// the operation's bounds from the AWS model, and an opaque token for the next page that only the listing
/// that issued it accepts. Every list operation pages through this one piece.
struct Paging {
    /// How an operation pages: its size member with the model's bounds, the size when none is given
    /// (AWS documents none; 60, the most any of them allows, as moto has it), and its token member.
    struct Rule: Sendable {
        var sizeKey: String
        var bounds: ClosedRange<Int>
        var defaultSize: Int
        var tokenKey = "NextToken"
        /// `ListUserPools` must say its page size (`MaxResults` is required in the model).
        var sizeRequired = false

        static let groups = Rule(sizeKey: "Limit", bounds: 0...60, defaultSize: 60)
        static let users = Rule(sizeKey: "Limit", bounds: 0...60, defaultSize: 60, tokenKey: "PaginationToken")
        static let identityProviders = Rule(sizeKey: "MaxResults", bounds: 0...60, defaultSize: 60)
        static let resourceServers = Rule(sizeKey: "MaxResults", bounds: 1...50, defaultSize: 50)
        static let clients = Rule(sizeKey: "MaxResults", bounds: 1...60, defaultSize: 60)
        static let devices = Rule(sizeKey: "Limit", bounds: 0...60, defaultSize: 60, tokenKey: "PaginationToken")
        static let webAuthnCredentials = Rule(sizeKey: "MaxResults", bounds: 1...20, defaultSize: 20)
        static let userPools = Rule(sizeKey: "MaxResults", bounds: 1...60, defaultSize: 60, sizeRequired: true)
        /// `ListIdentityPools` and `ListIdentities` (cognito-identity): `MaxResults` required, 1 to 60.
        static let identityPools = Rule(sizeKey: "MaxResults", bounds: 1...60, defaultSize: 60, sizeRequired: true)
    }

    let rule: Rule
    /// How many items a page holds.
    let size: Int
    /// The key of the last item of the page before, from the token.
    let after: String?
    /// What a token is bound to (the operation and the pool).
    let scope: String

    /// Reads the page size and token of `call`; `scope` names the listing (a token from another is refused).
    init(_ call: CognitoCall, _ rule: Rule, scope: String) throws {
        try self.init(call.body, rule, scope: scope, requestId: call.requestId)
    }

    /// Reads the page size and token of a request's `body` (`requestId` is the answer's, which a refused token names).
    init(_ body: CognitoBody, _ rule: Rule, scope: String, requestId: String) throws {
        self.rule = rule
        self.scope = scope
        let member = CognitoBody.member(rule.sizeKey)
        let given = try body.int(rule.sizeKey)
        if let given, !rule.bounds.contains(given) {
            let bound = given < rule.bounds.lowerBound ? "greater than or equal to \(rule.bounds.lowerBound)"
                : "less than or equal to \(rule.bounds.upperBound)"
            throw CognitoError.invalid("1 validation error detected: Value '\(given)' at '\(member)' failed to satisfy constraint: Member must have value \(bound)")
        }
        if given == nil, rule.sizeRequired {
            throw CognitoBody.missing(rule.sizeKey)
        }
        // A size of 0 (which the model allows for some operations) asks for the usual page.
        size = given.flatMap { $0 == 0 ? nil : $0 } ?? rule.defaultSize
        after = try (try body.string(rule.tokenKey)).map { try Self.key(in: $0, scope: scope, requestId: requestId) }
    }

    /// The token for the page after the item with `key`.
    func token(after key: String) -> String { Data("\(scope)\n\(key)".utf8).base64EncodedString() }

    /// The key a token stands for. A token this listing did not issue is what Cognito answers a stale or
    /// foreign one with (aws-sdk-js#3705): "Paging marker … is invalid for request …".
    static func key(in token: String, scope: String, requestId: String) throws -> String {
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
              text.hasPrefix(scope + "\n") else {
            throw CognitoError.invalid("Paging marker \(token) is invalid for request \(requestId)")
        }
        return String(text.dropFirst(scope.count + 1))
    }

    /// This page of `items`, in the order of their keys, and the token of the next page if there is one.
    func page<T>(_ items: [T], key: (T) -> String) -> (items: [T], next: String?) {
        let rest = items.map { (key($0), $0) }.filter { item in after.map { item.0 > $0 } ?? true }.sorted { $0.0 < $1.0 }
        let page = rest.prefix(size)
        return (page.map(\.1), rest.count > page.count ? page.last.map { token(after: $0.0) } : nil)
    }

    /// `{resultKey: items}`, with the next page's token under the operation's token member.
    func answer(_ resultKey: String, _ items: [JSON], next: String?) -> JSON {
        var answer: [String: JSON] = [resultKey: .array(items)]
        answer[rule.tokenKey] = next.map(JSON.string)
        return .object(answer)
    }
}
