import AuthCore
import Foundation
import Synchronization

/// A Supabase project as the dialect sees it: the tenant and its parsed GoTrue configuration.
struct SupabaseProject: Sendable {
    let tenant: Tenant
    var config: SupabaseConfig

    /// The GoTrue environment of a tenant (`gotrue_env` in its settings).
    static func environment(of tenant: Tenant) -> [String: String] {
        (tenant.settings["gotrue_env"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }
}

/// Parsed configurations, cached per tenant and re-parsed when the tenant's settings change.
final class SupabaseProjects: Sendable {
    private let cache = Mutex<[String: SupabaseProject]>([:])
    let emulator: Emulator

    init(emulator: Emulator) {
        self.emulator = emulator
    }

    func project(_ id: String) throws -> SupabaseProject {
        let tenant = try emulator.requireTenant(id)
        guard tenant.dialect == .supabase else { throw AuthError.tenantNotFound(id) }
        if let cached = cache.withLock({ $0[id] }), cached.tenant.settings == tenant.settings { return cached }
        let project = SupabaseProject(tenant: tenant, config: try SupabaseConfig(env: SupabaseProject.environment(of: tenant)))
        cache.withLock { $0[id] = project }
        return project
    }
}
