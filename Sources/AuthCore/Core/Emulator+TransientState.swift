import Foundation
import Synchronization

extension Emulator {
    /// Forgets what the core keeps beside the database for one tenant: its rate-limit windows (send
    /// cooldowns and quotas, per-IP request counts) and its lockouts. A dialect's "clear the accounts"
    /// calls it, so a test that starts over is not held up by what the accounts it cleared ran into; a
    /// tenant-scoped reset calls it too.
    ///
    /// Only `tenant`'s own: a tenant whose id extends it with a colon (a Firebase project's Identity
    /// Platform tenant, `project:tenant`) is another tenant and keeps its state.
    public func forgetTransientState(in tenant: String) throws {
        let nested = try tenants().map(\.id).filter { $0.hasPrefix(tenant + ":") }
        // Window keys start with their tenant's id and a colon (`RateLimiter`).
        rateLimiter.clear { key in key.hasPrefix(tenant + ":") && !nested.contains { key.hasPrefix($0 + ":") } }
        _ = lockouts.clear(at: clock.now) { key, _ in key.tenant == tenant }
        policyCache.withLock { _ = $0.removeValue(forKey: tenant) }
    }
}
