import Foundation

/// What happened, for the audit trail.
public enum EventType: String, Sendable, Codable, CaseIterable {
    case userSignedUp = "user.signed_up"
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case userDeleted = "user.deleted"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    case signInSucceeded = "signin.succeeded"
    case signInFailed = "signin.failed"
    case codeIssued = "code.issued"
    case codeUsed = "code.used"
    case tokenRefreshed = "token.refreshed"
    case sessionRevoked = "session.revoked"
    case messageSent = "message.sent"
    case messageSuppressed = "message.suppressed"
    case deepLinkCaptured = "deeplink.captured"
    /// A captured deep link was opened in a simulator or by the user's command (`--open-deeplinks`), or failed to.
    case deepLinkOpened = "deeplink.opened"
    /// A requested redirect was not allowed and the vendor's fallback was used instead.
    case redirectRejected = "redirect.rejected"
    case tenantCreated = "tenant.created"
    case tenantDeleted = "tenant.deleted"
    case clockChanged = "clock.changed"
    case snapshotTaken = "snapshot.taken"
    case snapshotRestored = "snapshot.restored"
    case emulatorReset = "emulator.reset"
    /// A fault rule fired on a request.
    case faultFired = "fault.fired"
    /// Fault rules were added, removed, switched on or off through the control API (the console's faults view follows).
    case faultsChanged = "faults.changed"
    /// Failed attempts started a lockout under the tenant's policy.
    case lockoutStarted = "lockout.started"
    /// A lockout was lifted before it ended (a success, a password reset, the control API).
    case lockoutCleared = "lockout.cleared"
    /// A hook, blocking function or Lambda trigger was called (or a fault rule answered for it).
    case hookCalled = "hook.called"
    /// A user could not be mirrored into a Supabase project's own database (`--supabase-db`).
    case mirrorFailed = "mirror.failed"
    /// A Cognito user import job went through its file: the counts, and what each line came to (AWS's CloudWatch log).
    case importFinished = "import.finished"
}

/// One entry of the audit trail.
public struct Event: Sendable, Equatable {
    public var id: String
    public var type: EventType
    public var tenant: String?
    public var userId: String?
    public var ip: String?
    public var userAgent: String?
    /// Event-specific facts (the failure reason, the message id, the new clock time…).
    public var detail: [String: JSON]
    public var createdAt: Date
    public var sequence: Int

    init(id: String, type: EventType, tenant: String?, userId: String?, ip: String?, userAgent: String?, detail: [String: JSON],
         createdAt: Date, sequence: Int) {
        self.id = id; self.type = type; self.tenant = tenant; self.userId = userId; self.ip = ip; self.userAgent = userAgent
        self.detail = detail; self.createdAt = createdAt; self.sequence = sequence
    }
}

/// Everything the live feed carries: events, new messages and captured deep links.
public enum FeedItem: Sendable {
    case event(Event)
    case message(Message)
    case deepLink(DeepLink)
}
