import AuthCore
import Foundation

/// The Firebase emulator's export directory (`firebase emulators:export`, `--import`), both ways:
///
/// ```
/// DIR/firebase-export-metadata.json        {"auth": {"path": "auth_export", …}, …}
/// DIR/auth_export/config.json              the project config
/// DIR/auth_export/accounts.json            {"kind": "identitytoolkit#DownloadAccountResponse", "users": [UserInfo…]}
/// DIR/auth_export/accounts-<tenant>.json   the same, per tenant
/// ```
///
/// The emulator keeps passwords in plain text inside a fake hash; Fauxth reads those and hashes them,
/// and never writes a password out, so exported accounts carry none.
extension FirebaseDialect {
    /// Loads an export into `project` (the default project when nil); answers how many accounts came in.
    public func importEmulatorExport(from directory: String, project: String? = nil) throws -> Int {
        let root = URL(fileURLWithPath: directory)
        let metadata = try? Self.readJSON(root.appendingPathComponent("firebase-export-metadata.json"))
        let authDirectory = root.appendingPathComponent(metadata?["auth"]?["path"]?.stringValue ?? "auth_export")
        let projectId = project ?? projects.defaultProject
        let scope = try projects.scope(project: projectId, tenant: nil)
        if let config = try? Self.readJSON(authDirectory.appendingPathComponent("config.json")), case .object(let fields) = config {
            try emulator.changeTenantSettings(projectId) { settings in
                settings["config"] = .object(ProjectConfig.merge(settings["config"]?.objectValue ?? [:], fields, mask: nil))
            }
        }
        var count = 0
        let files = (try? FileManager.default.contentsOfDirectory(atPath: authDirectory.path)) ?? []
        for file in files.sorted() where file.hasPrefix("accounts") && file.hasSuffix(".json") {
            let tenantId = file == "accounts.json" ? nil : String(file.dropFirst("accounts-".count).dropLast(".json".count))
            let target = try tenantId.map { try projects.scope(project: projectId, tenant: $0) } ?? scope
            let document = try Self.readJSON(authDirectory.appendingPathComponent(file))
            for item in document["users"]?.arrayValue ?? [] {
                guard case .object(let fields) = item else { continue }
                do {
                    try AccountImport(emulator: emulator, scope: target).importUser(FirebaseBody(fields: FirebaseBody.normalized(fields)))
                    count += 1
                } catch {
                    throw FirebaseExportError(file: file, reason: "account \(item["localId"]?.stringValue ?? "?"): \(Self.describe(error))")
                }
            }
        }
        return count
    }

    /// Writes `project` (the default project when nil) in the emulator's export layout; answers what it wrote.
    public func exportEmulatorFormat(to directory: String, project: String? = nil) throws -> JSON {
        let projectId = project ?? projects.defaultProject
        let scope = try projects.scope(project: projectId, tenant: nil)
        let root = URL(fileURLWithPath: directory), auth = root.appendingPathComponent("auth_export")
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        try Self.write(["version": "fauxth", "auth": ["version": "fauxth", "path": "auth_export"]],
                       to: root.appendingPathComponent("firebase-export-metadata.json"))
        try Self.write(.object(ProjectConfig.config(scope)), to: auth.appendingPathComponent("config.json"))
        var written = ["accounts.json": try exportAccounts(scope, to: auth.appendingPathComponent("accounts.json"))]
        for tenant in try projects.tenants(of: projectId) {
            let id = String(tenant.id.dropFirst(projectId.count + 1))
            let file = "accounts-\(id).json"
            written[file] = try exportAccounts(try projects.scope(project: projectId, tenant: id), to: auth.appendingPathComponent(file))
        }
        return ["directory": .string(directory), "project": .string(projectId), "accounts": .object(written.mapValues { .int($0) })]
    }

    private func exportAccounts(_ scope: FirebaseScope, to file: URL) throws -> Int {
        let users = try emulator.usersByID(in: scope.coreTenant, limit: Int.max)
        let infos = try Lookup.infos(emulator, users, scope: scope).map { json -> JSON in
            var info = json.objectValue ?? [:]
            // The redacted placeholder would read as a hash; an exported account simply has no password.
            info.removeValue(forKey: "passwordHash")
            return .object(info)
        }
        try Self.write(["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(infos)], to: file)
        return users.count
    }

    private static func readJSON(_ url: URL) throws -> JSON {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FirebaseExportError(file: url.path, reason: "cannot read the file")
        }
        do { return try JSON.parse(data) } catch { throw FirebaseExportError(file: url.path, reason: "not valid JSON") }
    }

    private static func write(_ json: JSON, to url: URL) throws {
        do { try Data(json.serialized().utf8).write(to: url, options: .atomic) } catch {
            throw FirebaseExportError(file: url.path, reason: "cannot write the file (\(error.localizedDescription))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? FirebaseError { return error.message }
        if let error = error as? AuthError { return FirebaseError(core: error).message }
        return "\(error)"
    }
}

/// An export directory that cannot be read or written: which file, and why.
public struct FirebaseExportError: Error, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { "\(file): \(reason)" }
}
