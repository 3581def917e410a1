import Foundation
import Synchronization

/// What the core needs to call the app's hooks: how to send (the server's HTTP client), how each dialect
/// keeps its hooks in a tenant's settings (for the control API), and the recent calls a user may replay.
public final class Hooks: Sendable {
    private let sender = Mutex<(any HookTransport)?>(nil)
    private let schemas = Mutex<[Dialect: HookSchema]>([:])
    /// The last calls, by their event id, kept whole (secrets and all) so a replay can send them again.
    private let recent = Mutex<(order: [String], requests: [String: HookRequest])>(([], [:]))
    /// How many calls can be replayed.
    public let replayable = 200

    init() {}

    /// Sends hook requests; nil (a bare core in a unit test) makes every call unreachable.
    public var transport: (any HookTransport)? {
        get { sender.withLock { $0 } }
        set { sender.withLock { $0 = newValue } }
    }

    /// Each dialect's hook points and where its tenants' settings keep them; the server sets them.
    public subscript(dialect: Dialect) -> HookSchema? {
        get { schemas.withLock { $0[dialect] } }
        set { schemas.withLock { $0[dialect] = newValue } }
    }

    func remember(_ request: HookRequest, as event: String) {
        recent.withLock { r in
            r.order.append(event)
            r.requests[event] = request
            while r.order.count > replayable { r.requests.removeValue(forKey: r.order.removeFirst()) }
        }
    }

    func request(for event: String) -> HookRequest? { recent.withLock { $0.requests[event] } }
}

/// A dialect's hook points and how its tenants' settings hold them, in the vendor's own terms (GoTrue's
/// `GOTRUE_HOOK_*` variables, Firebase's `blockingFunctions`, a pool's `LambdaConfig`). The control API
/// reads and writes hooks through it, one JSON object per point, `{"uri": …}` plus the vendor's extras.
public struct HookSchema: Sendable {
    /// The vendor's hook points, in its names.
    public var points: [String]
    /// The hooks a tenant has set: point → `{"uri": …, …}`.
    public var read: @Sendable (Tenant) -> [String: JSON]
    /// The tenant's settings with one point set (or cleared, with nil); throws on a binding the vendor
    /// would refuse.
    public var write: @Sendable (Tenant, _ point: String, JSON?) throws -> [String: JSON]

    public init(points: [String], read: @escaping @Sendable (Tenant) -> [String: JSON],
                write: @escaping @Sendable (Tenant, String, JSON?) throws -> [String: JSON]) {
        self.points = points; self.read = read; self.write = write
    }
}
