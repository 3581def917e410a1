import AuthCore
import Console
import Foundation
import NIOCore
import ServiceLifecycle

/// Everything the application is built from. The CLI fills it from flags; tests build it directly
/// (frozen clock, seeded generator, an in-code seed).
public struct FauxthOptions: Sendable {
    public var host: String
    public var port: Int
    public var seed: Seed
    public var clock: EmulatorClock
    public var generator: Generator
    public var passwordHasher: PasswordHasher
    /// Loaded at start when it exists; saved on shutdown and every `autosave` seconds.
    public var snapshotPath: String?
    public var autosaveSeconds: Int?
    /// Serve the console from this folder instead of the embedded copy.
    public var webRoot: String?
    /// The Firebase project API keys no project lists belong to (`--firebase-project`); nil picks the
    /// first Firebase project of the seed, else `demo-fauxth`.
    public var firebaseProject: String?
    /// A Firebase emulator export directory loaded into the default Firebase project at start, as part
    /// of the state `reset` returns to.
    public var importFirebase: String?
    /// A port for the SMTP sink (`--smtp-port`; 0 picks a free one); nil runs none.
    public var smtpPort: Int?
    /// How much history is kept and when spent rows are swept.
    public var retention: Retention
    /// Called once per answered request (`--log-requests`); nil logs nothing and costs nothing.
    public var requestLog: (@Sendable (RequestLogEntry) -> Void)?
    /// Where Cognito triggers given as Lambda ARNs are invoked (`--lambda-endpoint`: `sam local start-lambda`,
    /// LocalStack); a pool's own `lambda_endpoint` comes first.
    public var lambdaEndpoint: String? = nil
    /// Opens every captured deep link in a simulator or through a command (`--open-deeplinks`), and lets the
    /// control API and the console open one on request; nil opens nothing.
    public var deepLinkOpener: DeepLinkOpener? = nil
    /// How long a connection may sit idle between requests, or take to send a request's head, before it is closed
    /// (a minute, as the gateways in front of the real services allow); tests shorten it.
    public var idleTimeout: TimeAmount = .seconds(60)

    public init(host: String = "127.0.0.1", port: Int = 9099, seed: Seed = Seed(), clock: EmulatorClock = EmulatorClock(),
                generator: Generator = Generator(), passwordHasher: PasswordHasher = PasswordHasher(),
                snapshotPath: String? = nil, autosaveSeconds: Int? = nil, webRoot: String? = nil, firebaseProject: String? = nil,
                importFirebase: String? = nil, smtpPort: Int? = nil, retention: Retention = Retention(),
                requestLog: (@Sendable (RequestLogEntry) -> Void)? = nil) {
        self.host = host; self.port = port; self.seed = seed; self.clock = clock; self.generator = generator
        self.passwordHasher = passwordHasher; self.snapshotPath = snapshotPath; self.autosaveSeconds = autosaveSeconds
        self.webRoot = webRoot; self.firebaseProject = firebaseProject; self.importFirebase = importFirebase
        self.smtpPort = smtpPort; self.retention = retention; self.requestLog = requestLog
    }
}

/// Seeds as the CLI assembles them.
public enum SeedLoader {
    /// The seed compiled into the binary (`seed/default.json`).
    public static func builtIn() throws -> Seed {
        try Seed.parse(Data(Console.EmbeddedAssets.file("seed/default.json") ?? []), file: "seed/default.json (built in)")
    }

    /// The built-in seed (unless `noDefault`) with each file's tenants added in order.
    public static func load(files: [String], noDefault: Bool) throws -> Seed {
        var seed = noDefault ? Seed() : try builtIn()
        for file in files { seed = try seed.merged(with: try Seed.load(path: file)) }
        return seed
    }
}

/// `--supabase-env FILE --supabase-port N`: a Supabase project from the dotenv file a user runs GoTrue
/// with, served on its own port.
public enum DotenvProjects {
    /// Tenants for each file and port, paired in order. The project id is `FAUXTH_PROJECT_ID` from the
    /// file when set, else `supabase-<port>`.
    public static func seed(files: [String], ports: [Int]) throws -> Seed {
        guard files.count == ports.count else {
            throw SeedError(file: "command line", path: "--supabase-env", reason: "each --supabase-env needs its own --supabase-port (\(files.count) files, \(ports.count) ports)")
        }
        return Seed(tenants: try zip(files, ports).map { file, port in
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw SeedError(file: file, path: "$", reason: "cannot read the file")
            }
            var env = try parse(text, file: file)
            let id = env.removeValue(forKey: "FAUXTH_PROJECT_ID") ?? "supabase-\(port)"
            return Seed.TenantSeed(id: id, dialect: .supabase, name: file,
                                   settings: ["gotrue_env": .object(env.mapValues(JSON.string)), "port": .int(port)])
        })
    }

    /// `KEY=value` lines; `export ` prefixes, blank lines and `#` comments skipped, matching quotes removed.
    static func parse(_ text: String, file: String) throws -> [String: String] {
        var env: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw SeedError(file: file, path: "line \(number + 1)", reason: "expected KEY=value")
            }
            let key = String(line[..<equals]).trimmingCharacters(in: .whitespaces)
            var value = String(line[line.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            env[key] = value
        }
        return env
    }
}

/// A path given on the command line that cannot serve: which option, the path, and why. Found before
/// anything starts, so a typo stops start-up with its reason instead of failing later (a snapshot that
/// cannot be written is otherwise found at shutdown, when the state is lost).
public struct StartupError: Error, Equatable, CustomStringConvertible {
    public var option: String
    public var path: String
    public var reason: String
    public var description: String { "\(option) \(path): \(reason)" }

    /// A port another program holds: which option or setting asked for it, and what to do instead.
    static func portInUse(_ port: Int, by owner: String) -> StartupError {
        StartupError(option: owner, path: String(port),
                     reason: "the port is in use by another program (is Fauxth already running?); choose another, or 0 for any free port")
    }
}

/// A listener whose port another program holds stops start-up naming the port and the option that asked
/// for it, instead of NIO's `bind(descriptor:ptr:bytes:)` error.
struct PortListener: Service, CustomStringConvertible {
    let service: any Service
    let port: Int
    let owner: String

    var description: String { "listener on port \(port) (\(owner))" }

    func run() async throws {
        do { try await service.run() } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw StartupError.portInUse(port, by: owner)
        }
    }
}

extension FauxthOptions {
    /// Checks the paths the options name: the snapshot's folder exists and can be written (the file itself,
    /// if there, is the snapshot loader's to judge), the Firebase export and the web root are folders (the
    /// web root with `index.html`).
    public func checkPaths() throws {
        let files = FileManager.default
        func isDirectory(_ path: String) -> Bool {
            var directory: ObjCBool = false
            return files.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
        }
        if let path = snapshotPath {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard isDirectory(folder) else { throw StartupError(option: "--snapshot", path: path, reason: "the folder \(folder) does not exist") }
            guard files.isWritableFile(atPath: folder) else {
                throw StartupError(option: "--snapshot", path: path, reason: "the folder \(folder) cannot be written, so the snapshot could not be saved")
            }
        }
        if let path = importFirebase, !isDirectory(path) {
            throw StartupError(option: "--import-firebase", path: path, reason: "no such folder (give the folder `firebase emulators:export` wrote)")
        }
        if let path = webRoot {
            guard isDirectory(path) else { throw StartupError(option: "--web-root", path: path, reason: "no such folder") }
            guard files.fileExists(atPath: URL(fileURLWithPath: path).appendingPathComponent("index.html").path) else {
                throw StartupError(option: "--web-root", path: path, reason: "has no index.html (give the folder holding the console's files, web/)")
            }
        }
    }
}
