import AuthCore
import CognitoAPI
import Foundation
import Synchronization
import FirebaseAPI
import SupabaseAPI

/// `/_emu/v1/info`: the version, where things are, and how to point each SDK at each tenant (`hints`, and
/// `notes` on what cannot be set). A project with its own port is reached there; the others through `baseURL`.
func info(_ emulator: Emulator, firebase: FirebaseDialect, baseURL: String, listeners: [String] = [], projectURLs: [String: String] = [:],
          smtp: String? = nil, openDeepLinks: String? = nil) -> JSON {
    let tenants = ((try? emulator.tenants()) ?? []).map { tenant -> JSON in
        var hints: [String: String] = [:], notes: [String] = []
        switch tenant.dialect {
        case .supabase: hints = SupabaseDialect.connectionHints(for: tenant, baseURL: projectURLs[tenant.id] ?? baseURL)
        case .firebase:
            (hints, notes) = firebase.connectionHints(for: tenant, host: String(baseURL.dropFirst("http://".count)))
        case .cognito: hints = CognitoDialect.connectionHints(for: tenant, baseURL: baseURL, hostedUIURL: projectURLs[tenant.id])
        }
        return ["id": .string(tenant.id), "dialect": .string(tenant.dialect.rawValue), "name": .string(tenant.name),
                "hints": .object(hints.mapValues(JSON.string)), "notes": .array(notes.map(JSON.string))]
    }
    return ["version": .string(fauxthVersion), "base_url": .string(baseURL), "console_url": .string(baseURL + "/_emu/"),
            "control_url": .string(baseURL + "/_emu/v1"), "deterministic": .bool(emulator.generator.isDeterministic),
            "clock": ["now": .string(RFC3339.string(from: emulator.clock.now)), "mode": .string(emulator.clock.mode.rawValue)],
            "schema_version": .int(Emulator.schemaVersion), "listeners": .array(listeners.map(JSON.string)),
            "smtp": smtp.map(JSON.string) ?? .null, "open_deeplinks": openDeepLinks.map(JSON.string) ?? .null, "sms_url": .string(baseURL + "/2010-04-01/Accounts/{AccountSid}/Messages.json"),
            "retention": ["max_messages": .int(emulator.retention.messages), "max_events": .int(emulator.retention.events),
                          "max_deeplinks": .int(emulator.retention.deepLinks), "keep_spent": .double(emulator.retention.spentFor)],
            "tenants": .array(tenants)]
}

/// The start-up banner: where the console is, and what to set for each tenant (a note, as a shell
/// comment, where something cannot be set).
public func banner(_ app: FauxthApplication, baseURL: String) -> String {
    var lines = ["Fauxth \(fauxthVersion) is listening on \(baseURL)", "  console:     \(baseURL)/_emu/",
                 "  control API: \(baseURL)/_emu/v1 (OpenAPI: \(baseURL)/_emu/v1/openapi.json)"]
    if let smtp = app.listeners.smtpAddress { lines.append("  SMTP sink:   \(smtp) (the app's own mail lands in the inbox)") }
    let described = info(app.emulator, firebase: app.firebase, baseURL: baseURL, projectURLs: app.listeners.projectURLs)
    for tenant in described["tenants"]?.arrayValue ?? [] {
        lines.append("  \(tenant["dialect"]?.stringValue ?? "") tenant \"\(tenant["id"]?.stringValue ?? "")\":")
        for (key, value) in (tenant["hints"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("    \(key)=\(value.stringValue ?? "")")
        }
        for note in tenant["notes"]?.arrayValue ?? [] { lines.append("    # \(note.stringValue ?? "")") }
    }
    return lines.joined(separator: "\n")
}

/// The addresses the server bound, filled in as each listener comes up; tells when all are up.
public final class Listeners: Sendable {
    private struct State {
        var main: Int?
        var projects: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let expected: Int
    private let host: String
    /// The SMTP sink's port, when one runs.
    public let smtpPort: Int?

    init(expected: Int, host: String, smtpPort: Int? = nil) {
        self.expected = expected
        self.host = host
        self.smtpPort = smtpPort
    }

    /// `host:port` of the SMTP sink.
    public var smtpAddress: String? { smtpPort.map { "\(host.contains(":") ? "[\(host)]" : host):\($0)" } }

    func url(_ port: Int) -> String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Every listener's URL, the main one first.
    var all: [String] {
        state.withLock { s in (s.main.map { [url($0)] } ?? []) + s.projects.keys.sorted().compactMap { s.projects[$0].map(url) } }
    }

    /// Each project's own URL, by tenant id.
    public var projectURLs: [String: String] { state.withLock { $0.projects.mapValues(url) } }

    /// Records the main listener; true when that makes every listener bound.
    func bound(main port: Int) -> Bool {
        state.withLock { s in
            s.main = port
            return s.projects.count + 1 == expected
        }
    }

    /// Records the listener of a project made at run time (start-up's count is done by then).
    func added(project: String, port: Int) {
        state.withLock { $0.projects[project] = port }
    }

    /// Forgets the listener of a project that is gone.
    func unbound(project: String) {
        state.withLock { _ = $0.projects.removeValue(forKey: project) }
    }

    /// Records a project listener; the main port when that makes every listener bound.
    func bound(project: String, port: Int) -> Int? {
        state.withLock { s in
            s.projects[project] = port
            return s.projects.count + 1 == expected ? s.main : nil
        }
    }
}
