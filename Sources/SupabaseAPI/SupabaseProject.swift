import AuthCore
import Foundation

/// A Supabase project as the dialect sees it: the tenant and its parsed GoTrue configuration.
struct SupabaseProject: Sendable {
    let tenant: Tenant
    var config: SupabaseConfig

    /// The GoTrue environment of a tenant (`gotrue_env` in its settings).
    static func environment(of tenant: Tenant) -> [String: String] {
        (tenant.settings["gotrue_env"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }
}

/// Parsed configurations, cached per tenant and re-parsed once any tenant has changed.
final class SupabaseProjects: Sendable {
    // Keyed on the tenants' generation, not compared setting by setting: comparing the whole settings
    // dictionary on every request cost more than an integer check (scripts/bench).
    private let cache = TenantDerivedCache<SupabaseProject>()
    let emulator: Emulator

    init(emulator: Emulator) {
        self.emulator = emulator
    }

    func project(_ id: String) throws -> SupabaseProject {
        try cache.value(id, in: emulator) {
            let tenant = try emulator.requireTenant(id)
            guard tenant.dialect == .supabase else { throw AuthError.tenantNotFound(id) }
            return SupabaseProject(tenant: tenant, config: try SupabaseConfig(env: SupabaseProject.environment(of: tenant)))
        }
    }
}
