import Crypto
import Foundation

/// A PKCE challenge (RFC 7636) as a client sends it.
public struct PKCEChallenge: Sendable, Equatable {
    public enum Method: String, Sendable { case s256, plain }
    public var challenge: String
    public var method: Method

    public init(challenge: String, method: Method) {
        self.challenge = challenge
        self.method = method
    }

    /// The S256 challenge for `verifier`: base64url(SHA-256(verifier)), what a client sends.
    public static func s256(verifier: String) -> PKCEChallenge {
        PKCEChallenge(challenge: Base64URL.encode(SHA256.hash(data: Array(verifier.utf8))), method: .s256)
    }

    /// Whether `verifier` answers this challenge, compared in constant time.
    public func isAnswered(by verifier: String) -> Bool {
        let expected = switch method {
        case .s256: Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
        case .plain: verifier
        }
        return constantTimeEquals(expected, challenge)
    }
}

extension Emulator {
    /// Opens a PKCE flow for a user; its id becomes the auth code once `issueAuthCode` is called.
    /// `providerToken` is an identity provider's access token the session hands over (GoTrue's `provider_token`).
    public func startFlow(in tenant: String, userId: String, challenge: PKCEChallenge, authenticationMethod: String,
                          providerToken: String? = nil) throws {
        try db.withConnection { c in
            _ = try c.run("""
                INSERT INTO flow_states (tenant, id, user_id, code_challenge, code_challenge_method, authentication_method, created_at, provider_token)
                VALUES (?,?,?,?,?,?,?,?)
                """, [.text(tenant), .text(newID()), .text(userId), .text(challenge.challenge), .text(challenge.method.rawValue),
                      .text(authenticationMethod), SQLValue(clock.now), SQLValue(providerToken)])
        }
    }

    /// The auth code of the user's newest open flow, stamped as issued now (the flow's lifetime runs
    /// from here); nil when the user has no open flow.
    public func issueAuthCode(in tenant: String, userId: String) throws -> String? {
        try db.transaction { c in
            guard let id = try c.first("SELECT id FROM flow_states WHERE tenant = ? AND user_id = ? ORDER BY created_at DESC, rowid DESC",
                                       [.text(tenant), .text(userId)])?.string("id") else { return nil }
            try c.run("UPDATE flow_states SET auth_code_issued_at = ? WHERE tenant = ? AND id = ?", [SQLValue(clock.now), .text(tenant), .text(id)])
            return id
        }
    }

    /// Exchanges an auth code and its verifier for the user id and how they authenticated. The flow is
    /// single use: it is deleted once the verifier matches.
    public func exchangeAuthCode(in tenant: String, code: String, verifier: String, lifetime: TimeInterval) throws
        -> (userId: String, method: String, providerToken: String?) {
        let now = clock.now
        let outcome: Result<(String, String, String?), AuthError> = try db.transaction { c in
            guard let row = try c.first("SELECT * FROM flow_states WHERE tenant = ? AND id = ?", [.text(tenant), .text(code)]) else {
                return .failure(.flowStateNotFound)
            }
            let started = row.date("auth_code_issued_at") ?? row.date("created_at") ?? .distantPast
            guard now.timeIntervalSince(started) <= lifetime else { return .failure(.flowStateExpired) }
            let challenge = PKCEChallenge(challenge: row.string("code_challenge") ?? "",
                                          method: PKCEChallenge.Method(rawValue: row.string("code_challenge_method") ?? "") ?? .s256)
            guard challenge.isAnswered(by: verifier) else { return .failure(.badCodeVerifier) }
            try c.run("DELETE FROM flow_states WHERE tenant = ? AND id = ?", [.text(tenant), .text(code)])
            return .success((row.string("user_id") ?? "", row.string("authentication_method") ?? "otp", row.string("provider_token")))
        }
        return try outcome.get()
    }
}
