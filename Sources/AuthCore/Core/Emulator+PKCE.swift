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
        let id = newID()
        try db.withConnection { c in
            try Flows.startFlow(c, tenant: tenant, id: id, userId: userId, challenge: challenge, authenticationMethod: authenticationMethod,
                                providerToken: providerToken, at: clock.now)
        }
    }

    /// The auth code of the user's newest open flow of `authenticationMethod` (GoTrue's `FindFlowStateByUserID`, so a
    /// sign-up link finds the sign-up's flow though a password reset began since), stamped as issued now; nil when
    /// there is none.
    public func issueAuthCode(in tenant: String, userId: String, authenticationMethod: String) throws -> String? {
        try db.transaction { c in
            guard let id = try Flows.newestFlow(c, tenant: tenant, userId: userId, authenticationMethod: authenticationMethod) else { return nil }
            try Flows.stampAuthCodeIssued(c, tenant: tenant, id: id, at: clock.now)
            return id
        }
    }

    /// Exchanges an auth code and its verifier for the user id and how they authenticated. The flow is
    /// single use: it is deleted once the verifier matches.
    public func exchangeAuthCode(in tenant: String, code: String, verifier: String, lifetime: TimeInterval) throws
        -> (userId: String, method: String, providerToken: String?) {
        let now = clock.now
        let outcome: Result<(String, String, String?), AuthError> = try db.transaction { c in
            guard let flow = try Flows.flow(c, tenant: tenant, id: code) else { return .failure(.flowStateNotFound) }
            // GoTrue's IsExpired: a magic link's flow runs from its code, any other from its start (the sign-up or
            // reset request), so a link clicked late gives a code that is expired already.
            let start = flow.authenticationMethod == "magiclink" ? (flow.codeIssuedAt ?? flow.createdAt) : flow.createdAt
            guard now.timeIntervalSince(start) <= lifetime else { return .failure(.flowStateExpired) }
            guard flow.challenge.isAnswered(by: verifier) else { return .failure(.badCodeVerifier) }
            try Flows.deleteFlow(c, tenant: tenant, id: code)
            return .success((flow.userId, flow.authenticationMethod, flow.providerToken))
        }
        return try outcome.get()
    }
}
