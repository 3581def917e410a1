import AuthCore
import Foundation

/// A Supabase project as the dialect sees it: the tenant and its parsed GoTrue configuration.
struct SupabaseProject: Sendable {
    let tenant: Tenant
    var config: SupabaseConfig
    /// The tenant whose users, sessions and codes this project serves: its own, or, when several GoTrue
    /// configurations name the same database (`GOTRUE_DB_DATABASE_URL` or `DATABASE_URL`), the first of
    /// them, as GoTrue instances over one Postgres share one `auth.users`. Settings, keys and ports stay
    /// each project's own.
    let storeTenant: String
    /// The opaque API keys (`sb_publishable_…`, `sb_secret_…`) the Supabase gateway maps to the anon and
    /// service_role JWTs; the Supabase CLI's own unless the seed sets them.
    let publishableKey: String
    let secretKey: String

    static let defaultPublishableKey = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"
    static let defaultSecretKey = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"

    init(tenant: Tenant, config: SupabaseConfig, storeTenant: String) {
        self.tenant = tenant
        self.config = config
        self.storeTenant = storeTenant
        publishableKey = tenant.settings["publishable_key"]?.stringValue ?? Self.defaultPublishableKey
        secretKey = tenant.settings["secret_key"]?.stringValue ?? Self.defaultSecretKey
    }

    /// The GoTrue environment of a tenant (`gotrue_env` in its settings).
    static func environment(of tenant: Tenant) -> [String: String] {
        (tenant.settings["gotrue_env"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// The database a GoTrue configuration names, as GoTrue reads it (`GOTRUE_DB_DATABASE_URL`, else `DATABASE_URL`).
    static func databaseURL(of tenant: Tenant) -> String? {
        let env = environment(of: tenant)
        return [env["GOTRUE_DB_DATABASE_URL"], env["DATABASE_URL"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
    }
}

/// The app's own Postgres a Supabase project keeps its users in step with (`"db"` in its settings, `--supabase-db`),
/// read in one place: the dialect makes answers wait for it and the server runs the mirror for it.
enum SupabaseMirrorSetting {
    static func database(dialect: Dialect, settings: [String: JSON]) -> String? {
        dialect == .supabase ? settings["db"]?.stringValue : nil
    }
}

extension Tenant {
    /// The Postgres this tenant mirrors its users into, if it is a Supabase project that names one.
    public var supabaseMirrorDatabase: String? { SupabaseMirrorSetting.database(dialect: dialect, settings: settings) }
}

extension Seed.TenantSeed {
    /// The Postgres this seeded tenant mirrors its users into, if it is a Supabase project that names one.
    public var supabaseMirrorDatabase: String? { SupabaseMirrorSetting.database(dialect: dialect, settings: settings) }
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
            return SupabaseProject(tenant: tenant, config: try SupabaseConfig(env: SupabaseProject.environment(of: tenant)),
                                   storeTenant: try storeTenant(of: tenant))
        }
    }

    /// The first Supabase tenant (in the order tenants were made) naming the same database, else the tenant itself.
    private func storeTenant(of tenant: Tenant) throws -> String {
        guard let url = SupabaseProject.databaseURL(of: tenant) else { return tenant.id }
        return try emulator.tenants().first { $0.dialect == .supabase && SupabaseProject.databaseURL(of: $0) == url }?.id ?? tenant.id
    }

    /// The tenant that holds a project's users (see `SupabaseProject.storeTenant`); the id itself for an
    /// unknown project, whose requests fail on their own.
    func storeTenant(_ id: String) -> String {
        (try? project(id).storeTenant) ?? id
    }
}
