import ArgumentParser
import AuthCore
import Console
import Foundation
import Hummingbird
import Logging
import Server

/// `fauxth`: the command line. `serve` is the default subcommand.
@main
struct FauxthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fauxth",
        abstract: "A local emulator for Supabase Auth, Firebase Authentication and Amazon Cognito, with an inbox for every email and SMS.",
        version: fauxthVersion,
        subcommands: [Serve.self, Health.self, SigningBench.self],
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    // Named here rather than derived from the type: the derivation describes the type through the runtime's
    // conformance tables, a few milliseconds of every start in a binary this size.
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the emulator (the default when no subcommand is given).",
        discussion: "Loads the built-in seed (seed/default.json) and any --seed files, optionally a snapshot, then serves every dialect, the control API (/_emu/v1) and the console (/_emu/) on one port, plus any Supabase project ports. Prints a banner with connection hints, then a line starting with \"ready\". SIGINT/SIGTERM stop it at once (open event streams and long polls are ended), saving --snapshot first.")

    enum LogFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Option(help: "Address to listen on. Anything but a loopback address exposes the emulator to the network, and needs --allow-remote.")
    var host = "127.0.0.1"

    @Flag(name: .customLong("allow-remote"), help: "Allow a --host that is not a loopback address (anyone who can reach it can sign in as any user).")
    var allowRemote = false

    @Option(help: "Port to listen on (0 picks a free one; the banner and ready line show it).")
    var port = 9099

    @Option(name: .customLong("seed"), help: ArgumentHelp("A seed file to load on top of the built-in seed (repeatable; a tenant with the same id replaces the earlier one).", valueName: "path"))
    var seeds: [String] = []

    @Flag(help: "Do not load the built-in seed.")
    var noSeed = false

    @Option(name: .customLong("supabase-env"), help: ArgumentHelp("Add a Supabase project from the dotenv file you run GoTrue with (GOTRUE_* and API_EXTERNAL_URL variables); repeatable, each with a --supabase-port.", valueName: "file"))
    var supabaseEnvFiles: [String] = []

    @Option(name: .customLong("supabase-port"), help: ArgumentHelp("The port that serves the matching --supabase-env project, at the root and under /auth/v1 (use it as the GoTrue URL).", valueName: "N"))
    var supabasePorts: [Int] = []

    @Option(name: .customLong("firebase-project"), help: ArgumentHelp("The Firebase project API keys that no project lists belong to (default: the first Firebase project in the seed, else demo-fauxth); the only way client SDKs reach a project with no api_keys of its own.", valueName: "id"))
    var firebaseProject: String?

    @Option(name: .customLong("import-firebase"), help: ArgumentHelp("Load a Firebase emulator export directory (auth_export/accounts.json, config.json) into the default Firebase project at start.", valueName: "dir"))
    var importFirebase: String?

    @Option(help: ArgumentHelp("A SQLite snapshot: loaded at start if it exists, saved on SIGINT/SIGTERM.", valueName: "path"))
    var snapshot: String?

    @Option(help: ArgumentHelp("Also save --snapshot every N seconds.", valueName: "N"))
    var autosave: Int?

    @Option(help: ArgumentHelp("Make every id, code and key reproducible from this seed number.", valueName: "SEED"))
    var deterministic: UInt64?

    @Option(help: ArgumentHelp("Start the clock as real, frozen, frozen@<RFC 3339> or offset@<seconds>.", valueName: "mode"))
    var clock: String?

    @Option(help: "How the event log on stdout is written: text, or json (one NDJSON object per line).")
    var logFormat: LogFormat = .text

    @Flag(help: "Also log one line per request: method, path, status, the operation it was and its tenant and client, and the time taken.")
    var logRequests = false

    @Option(help: ArgumentHelp("Serve the console from this folder instead of the embedded copy (for console development).", valueName: "path"))
    var webRoot: String?

    @Option(name: .customLong("smtp-port"), help: ArgumentHelp("Also run an SMTP server on this port (e.g. 2500; 0 picks a free one): mail the app sends itself lands in the inbox.", valueName: "N"))
    var smtpPort: Int?

    @Option(name: .customLong("lambda-endpoint"), help: ArgumentHelp("Where Cognito Lambda triggers given as ARNs are invoked (the Lambda Invoke API): sam local start-lambda (http://127.0.0.1:3001) or LocalStack (http://127.0.0.1:4566).", valueName: "url"))
    var lambdaEndpoint: String?

    @Option(name: .customLong("supabase-upstream"), help: ArgumentHelp("Forward the default Supabase project's other services (/rest/v1, /storage/v1, /functions/v1, /graphql/v1, /realtime/v1…) to your local Supabase stack while Fauxth serves /auth/v1: supabase start's API, e.g. http://127.0.0.1:54321. Per project: \"upstream\" in the seed.", valueName: "url"))
    var supabaseUpstream: String?

    @Option(name: .customLong("supabase-db"), help: ArgumentHelp("Mirror the default Supabase project's users into this Postgres's auth.users and auth.identities (supabase start's DB URL, e.g. postgresql://postgres:postgres@127.0.0.1:54322/postgres), so foreign keys and triggers on auth.users work. Per project: \"db\" in the seed.", valueName: "url"))
    var supabaseDB: String?

    @Option(name: .customLong("open-deeplinks"), help: ArgumentHelp("Open every captured deep link where the app runs: simctl (the booted iOS simulator), adb (the connected Android emulator), or a command that gets the URL as its last argument. The console's deep links then have an Open in app button.", valueName: "simctl|adb|command"))
    var openDeepLinks: String?

    @Option(name: .customLong("faults"), help: ArgumentHelp("Fault rules to load at start (and after every reset): a JSON file ({\"rules\": [...]}) or the name of a scenario in seed/scenarios (repeatable).", valueName: "file|scenario"))
    var faults: [String] = []

    @Option(name: .customLong("max-messages"), help: ArgumentHelp("Outbox messages kept, newest first; older ones are dropped (0: no limit).", valueName: "N"))
    var maxMessages = Retention().messages

    @Option(name: .customLong("max-events"), help: ArgumentHelp("Events kept, newest first (0: no limit).", valueName: "N"))
    var maxEvents = Retention().events

    @Option(name: .customLong("max-deeplinks"), help: ArgumentHelp("Captured deep links kept, newest first (0: no limit).", valueName: "N"))
    var maxDeepLinks = Retention().deepLinks

    @Option(name: .customLong("keep-spent"), help: ArgumentHelp("Emulator seconds that expired codes and revoked sessions and refresh tokens are kept before they are swept.", valueName: "seconds"))
    var keepSpent = Retention().spentFor

    func validate() throws {
        if let clock, EmulatorClock.parse(clock) == nil {
            throw ValidationError("--clock: expected real, frozen, frozen@<RFC 3339> or offset@<seconds>, got \(clock)")
        }
        if let autosave, autosave <= 0 { throw ValidationError("--autosave: expected a positive number of seconds") }
        if autosave != nil && snapshot == nil { throw ValidationError("--autosave needs --snapshot") }
        if supabaseEnvFiles.count != supabasePorts.count {
            throw ValidationError("each --supabase-env needs a --supabase-port (got \(supabaseEnvFiles.count) files and \(supabasePorts.count) ports)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port: expected 0-65535") }
        // Refused, not just warned about: an emulator on the network lets anyone sign in as anyone.
        if !Self.isLoopback(host) && !allowRemote {
            throw ValidationError("--host \(host) is not a loopback address: anyone who can reach this machine could sign in as any user "
                                  + "and read every captured code. Add --allow-remote to listen there anyway.")
        }
        if let smtpPort, !(0...65535).contains(smtpPort) { throw ValidationError("--smtp-port: expected 0-65535") }
        if let lambdaEndpoint, !RedirectURL.isWeb(lambdaEndpoint) {
            throw ValidationError("--lambda-endpoint: expected an http:// or https:// URL, got \(lambdaEndpoint)")
        }
        if let supabaseUpstream, !RedirectURL.isWeb(supabaseUpstream) {
            throw ValidationError("--supabase-upstream: expected an http:// or https:// URL (supabase start's API, e.g. http://127.0.0.1:54321), got \(supabaseUpstream)")
        }
        if let supabaseDB, URL(string: supabaseDB)?.scheme.map({ $0 == "postgres" || $0 == "postgresql" }) != true {
            throw ValidationError("--supabase-db: expected a postgres:// URL (e.g. postgresql://postgres:postgres@127.0.0.1:54322/postgres)")
        }
        if let openDeepLinks, DeepLinkOpener(openDeepLinks) == nil { throw ValidationError("--open-deeplinks: expected simctl, adb or a command") }
        if min(maxMessages, maxEvents, maxDeepLinks) < 0 { throw ValidationError("--max-messages, --max-events, --max-deeplinks: expected 0 or more") }
        if !(keepSpent >= 0) { throw ValidationError("--keep-spent: expected 0 or more seconds") }
    }

    func run() async throws {
        // Handlers run on the event loops that read and write their connections (ConcurrencyOnEventLoops).
        // Installed as early as the command can, before the server starts any task; the in-process tests
        // keep the default.
        ConcurrencyOnEventLoops.install()
        var options: FauxthOptions
        do {
            options = FauxthOptions(
                host: host, port: port,
                seed: try SeedLoader.load(files: seeds, noDefault: noSeed).merged(with: DotenvProjects.seed(files: supabaseEnvFiles, ports: supabasePorts)),
                clock: clock.flatMap(EmulatorClock.parse) ?? EmulatorClock(),
                generator: deterministic.map { Generator(seed: $0) } ?? Generator(),
                snapshotPath: snapshot, autosaveSeconds: autosave, webRoot: webRoot, firebaseProject: firebaseProject,
                importFirebase: importFirebase, smtpPort: smtpPort,
                retention: Retention(messages: maxMessages, events: maxEvents, deepLinks: maxDeepLinks, spentFor: keepSpent),
                requestLog: logRequests ? Self.requestLog(format: logFormat) : nil)
        } catch let error as SeedError {
            printError("error: invalid seed: \(error)")
            throw ExitCode(2)
        }
        options.lambdaEndpoint = lambdaEndpoint
        for (flag, key, value) in [("--supabase-upstream", "upstream", supabaseUpstream), ("--supabase-db", "db", supabaseDB)] {
            guard let value else { continue }
            // The default project, as /auth/v1 on the main port picks it: `default`, else the first Supabase tenant.
            let projects = options.seed.tenants.indices.filter { options.seed.tenants[$0].dialect == .supabase }
            guard let index = projects.first(where: { options.seed.tenants[$0].id == "default" }) ?? projects.first else {
                printError("error: \(flag): the seed has no Supabase project to set it for")
                throw ExitCode(2)
            }
            options.seed.tenants[index].settings[key] = .string(value)
        }
        options.deepLinkOpener = openDeepLinks.flatMap(DeepLinkOpener.init)
        if !Self.isLoopback(host) {
            printError("WARNING: listening on \(host), not a loopback address: anyone who can reach this machine can sign in as any user and read every captured code.")
        }
        var logger = Logger(label: "fauxth")
        logger.logLevel = .warning
        let app: FauxthApplication
        do {
            app = try buildApplication(options, logger: logger) { [logFormat, host] port in
                Self.announceReady(host: host, port: port, format: logFormat)
            }
        } catch let error as SeedError {
            printError("error: invalid seed: \(error)")
            throw ExitCode(2)
        } catch let error as SnapshotError {
            printError("error: \(error)")
            throw ExitCode(2)
        } catch let error as StartupError {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        do {
            var rules: [FaultRule] = []
            for source in faults { rules += try FaultScenarios.load(source, engine: app.emulator.faults) }
            app.emulator.faults.setStartupRules(rules)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        for warning in app.warnings { printError("warning: \(warning)") }
        ReadyState.shared.set(app)
        app.emulator.feed.observe { [logFormat] item in
            if let line = logFormat == .json ? EventLog.json(item) : EventLog.text(item) { LogOutput.standard.append(line) }
        }
        // The lines still waiting for their batch, however the server ends.
        defer { LogOutput.standard.finish(within: 5) }
        do { try await app.run() } catch let error as StartupError {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        if let snapshot {
            do { try app.emulator.saveSnapshot(to: snapshot) } catch { printError("error: could not save the snapshot: \(error)") }
        }
    }

    private static func announceReady(host: String, port: Int, format: LogFormat) {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let baseURL = "http://\(shownHost):\(port)"
        guard let app = ReadyState.shared.app else { return }
        switch format {
        case .text:
            printOut(banner(app, baseURL: baseURL))
            printOut("ready \(baseURL)")
        case .json:
            printOut(#"{"kind":"ready","base_url":"\#(baseURL)","console_url":"\#(baseURL)/_emu/"}"#)
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `--log-requests`: each answered request as a line of the event log, in its format.
    private static func requestLog(format: LogFormat) -> @Sendable (RequestLogEntry) -> Void {
        { entry in LogOutput.standard.append(format == .json ? entry.json.serialized() : entry.text) }
    }

    /// A line written at once, after those waiting (`LogOutput`).
    private static func printOut(_ text: String) {
        LogOutput.standard.append(text)
        LogOutput.standard.flush()
    }

    private func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
