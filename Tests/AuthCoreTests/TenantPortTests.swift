import Foundation
import Testing
@testable import AuthCore

/// The ports the run-time project listeners follow, read from the settings without decoding them: the same
/// projects and ports as reading each tenant's `port` setting would give.
@Suite struct TenantPortTests {
    @Test func onlySupabaseProjectsWithAWholeNumberPortAreListedAsTheirSettingsReadIt() throws {
        let emulator = try makeEmulator()
        // As the control API takes them: parsed from a request's JSON, whole numbers written as 8082.0 and 1e4 too.
        let settings: [(String, Dialect, String)] = [
            ("int", .supabase, #"{"port": 8081}"#),
            ("whole-double", .supabase, #"{"port": 8082.0}"#),
            ("exponent", .supabase, #"{"port": 1e4}"#),
            ("free", .supabase, #"{"port": 0}"#),
            ("fraction", .supabase, #"{"port": 80.5}"#),
            ("text", .supabase, #"{"port": "8083"}"#),
            ("null", .supabase, #"{"port": null}"#),
            ("bool", .supabase, #"{"port": true}"#),
            ("none", .supabase, #"{"site_url": "http://localhost:3000"}"#),
            ("pool", .cognito, #"{"port": 8084}"#),
        ]
        for (id, dialect, json) in settings {
            try emulator.createTenant(id: id, dialect: dialect, settings: JSON.parse(Data(json.utf8)).objectValue ?? [:])
        }
        // A whole number written as a double in the stored text (our writer makes it an integer; a snapshot file made
        // or edited elsewhere may not): still a port.
        try emulator.db.withConnection { c in
            try c.run("""
                INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES ('hand', 'supabase', 'hand', '{"port": 8085.0}', 0)
                """)
        }
        emulator.tenantsChanged()
        let listed = try emulator.supabaseProjectPorts().map { "\($0.tenant)=\($0.port)" }
        #expect(listed == ["int=8081", "whole-double=8082", "exponent=10000", "free=0", "hand=8085"])
        // The rule it stands for: every Supabase tenant whose `port` setting reads as an Int, in creation order.
        let decoded = try emulator.tenants().compactMap { tenant in
            tenant.dialect == .supabase ? tenant.settings["port"]?.intValue.map { "\(tenant.id)=\($0)" } : nil
        }
        #expect(listed == decoded)
        try emulator.deleteTenant("int")
        #expect(try emulator.supabaseProjectPorts().map(\.tenant) == ["whole-double", "exponent", "free", "hand"])
    }
}
