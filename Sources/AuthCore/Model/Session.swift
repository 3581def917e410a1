import Foundation

/// A signed-in session: what a refresh token keeps alive and a logout ends.
public struct Session: Sendable, Equatable {
    public var tenant: String
    public var id: String
    public var userId: String
    /// Authenticator assurance level (`aal1`, `aal2`).
    public var aal: String
    /// How the user authenticated, newest first.
    public var amr: [AuthenticationMethod]
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var refreshedAt: Date?
    public var revokedAt: Date?
    /// Claims added to every token this session mints (a Firebase custom token's `claims`).
    public var claims: [String: JSON]

    init(tenant: String, id: String, userId: String, aal: String, amr: [AuthenticationMethod], userAgent: String?, ip: String?,
         createdAt: Date, claims: [String: JSON]) {
        self.tenant = tenant; self.id = id; self.userId = userId; self.aal = aal; self.amr = amr
        self.userAgent = userAgent; self.ip = ip; self.createdAt = createdAt; self.claims = claims
    }
}

/// One entry of a session's `amr`: the method and when it was used.
public struct AuthenticationMethod: Sendable, Equatable {
    public var method: String
    public var at: Date
    /// The second factor that proved this entry, as GoTrue ties a session to it (`factor_id`): removing the factor
    /// takes the entry away (`Emulator.deleteFactor`). Kept in the store, never in a token.
    public var factorId: String?

    public init(method: String, at: Date, factorId: String? = nil) {
        self.method = method
        self.at = at
        self.factorId = factorId
    }

    init?(json: JSON) {
        guard let method = json["method"]?.stringValue, let ts = json["timestamp"]?.intValue else { return nil }
        self.init(method: method, at: Date(timeIntervalSince1970: TimeInterval(ts)), factorId: json["factor_id"]?.stringValue)
    }

    var json: JSON {
        var o: [String: JSON] = ["method": .string(method), "timestamp": .int(Int(at.timeIntervalSince1970))]
        o["factor_id"] = factorId.map(JSON.string)
        return .object(o)
    }
}

/// Where a request came from, for sessions and the audit trail.
public struct RequestOrigin: Sendable, Equatable {
    public var ip: String?
    public var userAgent: String?

    public init(ip: String? = nil, userAgent: String? = nil) {
        self.ip = ip
        self.userAgent = userAgent
    }
}

/// A session just created or refreshed, with the plaintext refresh token (stored only as a hash).
public struct IssuedSession: Sendable {
    public var session: Session
    public var refreshToken: String
    /// The user as the session was opened (its sign-in stamps set) or refreshed, so the answer need not
    /// read it again; nil where the caller has to.
    public var user: User? = nil
    /// The user's MFA factors as the session was opened or refreshed (read in the same transaction), for
    /// answers that list them; nil where the caller has to read them.
    public var factors: [Factor]? = nil
}
