import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Test helpers for Fauxth: attach to a running server (or, on macOS and Linux, start the binary) and drive its
/// control API from XCTest or Swift Testing. Foundation only. In an iOS app's test target, attach: the simulator
/// reaches the Mac's `127.0.0.1`, where `fauxth` runs.
///
/// ```swift
/// let fauxth = try await FauxthClient.attach()            // $FAUXTH_URL, else http://127.0.0.1:9099
/// try await fauxth.reset()
/// // sign up through the app…
/// let message = try await fauxth.waitForMessage(to: "ada@example.com", purpose: "verify_email")
/// message.code                                           // the first code in it
/// ```
public final class FauxthClient: Sendable {
    /// The server's base URL (what the app's SDK points at).
    public let url: URL
    #if os(macOS) || os(Linux)
    private let process: Process?
    #endif

    /// A server already running at `url`; `stop` leaves it running.
    public init(url: URL) {
        self.url = url
        #if os(macOS) || os(Linux)
        process = nil
        #endif
    }

    /// A server already running at `url` (else `$FAUXTH_URL`, else http://127.0.0.1:9099), once it answers.
    public static func attach(_ url: URL? = nil) async throws -> FauxthClient {
        let fallback = ProcessInfo.processInfo.environment["FAUXTH_URL"].flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:9099")!
        let client = FauxthClient(url: url ?? fallback)
        _ = try await client.health()
        return client
    }

    #if os(macOS) || os(Linux)
    private init(url: URL, process: Process) {
        self.url = url
        self.process = process
    }

    /// Starts `binary` (else `$FAUXTH_BIN`, else `fauxth` on `PATH`) as `serve --port 0 ARGUMENTS` and waits for its
    /// ready line. The arguments are Fauxth's flags (`["--clock", "frozen"]`).
    public static func start(binary: String? = nil, arguments: [String] = [], environment: [String: String]? = nil,
                             readyTimeout: Duration = .seconds(30)) async throws -> FauxthClient {
        let process = Process()
        if let program = binary ?? ProcessInfo.processInfo.environment["FAUXTH_BIN"] {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = ["serve", "--port", "0"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["fauxth", "serve", "--port", "0"] + arguments
        }
        if let environment { process.environment = environment }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        // Read as it comes for the server's whole life (a pipe nobody reads fills at 64 KiB, and a server whose
        // write there blocks stops answering); its tail says why a server could not start.
        process.standardError = stderr
        let errors = OutputTail()
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; errors.close(); return }
            errors.append(data)
        }
        let (lines, continuation) = AsyncStream<String>.makeStream()
        let buffer = LineBuffer()
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; continuation.finish(); return }
            for line in buffer.append(data) { continuation.yield(line) }
        }
        do { try process.run() } catch { throw FauxthClientError.cannotStart("\(process.executableURL?.path ?? "fauxth"): \(error)") }
        let ready = Task { () -> URL? in
            for await line in lines {
                if line.hasPrefix("ready "), let url = URL(string: String(line.dropFirst(6))) { return url }
                if line.hasPrefix(#"{"kind":"ready""#), let object = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
                   let url = object["base_url"]?.string.flatMap(URL.init(string:)) { return url }
            }
            return nil
        }
        let timeout = Task { try await Task.sleep(for: readyTimeout); ready.cancel() }
        defer { timeout.cancel() }
        guard let url = await ready.value else {
            // Its stdout ended (it is exiting) or the time ran out (then it is stopped). Either way it is waited for,
            // and its stderr read to the end, for what it wrote last: two seconds at most.
            let timedOut = ready.isCancelled
            if timedOut { process.terminate() }
            for _ in 0..<100 {
                if !process.isRunning && errors.isClosed { break }
                try? await Task.sleep(for: .milliseconds(20))
            }
            let said = errors.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let why = timedOut ? "fauxth printed no ready line in \(readyTimeout)"
                : process.isRunning ? "fauxth closed its stdout without a ready line"
                : "fauxth exited (status \(process.terminationStatus)) before it was ready"
            if process.isRunning { process.terminate() }
            throw FauxthClientError.cannotStart(said.isEmpty ? why : "\(why): \(said)")
        }
        return FauxthClient(url: url, process: process)
    }
    #endif

    /// Stops a server `start` started (SIGTERM) and waits for it to exit; nothing for an attached one.
    public func stop() async {
        #if os(macOS) || os(Linux)
        guard let process, process.isRunning else { return }
        process.terminate()
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        #endif
    }

    // MARK: The control API

    /// One control API call (`path` under /_emu/v1): the decoded JSON answer (`.null` for none), or a `FauxthClientError`.
    @discardableResult
    public func request(_ method: String, _ path: String, body: JSONValue? = nil, query: [String: String?] = [:],
                        timeout: TimeInterval = 60) async throws -> JSONValue {
        var components = URLComponents(url: url.appendingPathComponent("_emu/v1"), resolvingAgainstBaseURL: false)!
        components.path += path
        let items = query.compactMap { key, value in value.map { URLQueryItem(name: key, value: $0) } }.sorted { $0.name < $1.name }
        if !items.isEmpty { components.queryItems = items }
        var request = URLRequest(url: components.url!, timeoutInterval: timeout)
        request.httpMethod = method
        if let body {
            request.httpBody = try JSONEncoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let decoded = data.isEmpty ? JSONValue.null : (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .string(String(decoding: data, as: UTF8.self))
        guard (200..<300).contains(status) else {
            throw FauxthClientError.control(status: status, code: decoded["error"]?["code"]?.string ?? "http_error",
                                            message: decoded["error"]?["message"]?.string ?? decoded.string ?? "")
        }
        return decoded
    }

    public func health() async throws -> JSONValue { try await request("GET", "/health") }
    public func info() async throws -> JSONValue { try await request("GET", "/info") }

    /// Back to the seed: everything (the clock too, unless `keepClock`), or one tenant.
    public func reset(tenant: String? = nil, keepClock: Bool = false) async throws {
        try await request("POST", "/reset", query: ["tenant": tenant, "clock": keepClock ? "keep" : nil])
    }

    public func snapshot(_ name: String, faults: Bool = true) async throws {
        try await request("POST", "/snapshots", body: ["name": .string(name), "faults": .bool(faults)])
    }

    /// Puts back the snapshot `name`: everything, or (with `tenant`) that tenant alone, the others untouched.
    public func restore(_ name: String, tenant: String? = nil) async throws {
        try await request("POST", "/snapshots/\(Self.segment(name))/restore", query: ["tenant": tenant])
    }

    // MARK: Messages and deep links

    public func messages(to: String? = nil, purpose: String? = nil, tenant: String? = nil) async throws -> [Message] {
        let answer = try await request("GET", "/messages", query: ["to": to, "purpose": purpose, "tenant": tenant])
        return (answer["messages"]?.array ?? []).map(Message.init)
    }

    /// The newest matching message at once if there is one (`since`, a message id, skips those), else the next
    /// to arrive; a 408 `FauxthClientError` after `timeout` seconds.
    public func waitForMessage(to: String? = nil, purpose: String? = nil, channel: String? = nil, tenant: String? = nil,
                               since: String? = nil, timeout: Double = 10) async throws -> Message {
        Message(try await request("GET", "/messages/wait", query: ["to": to, "purpose": purpose, "channel": channel, "tenant": tenant,
                                                                  "since": since, "timeout": String(timeout)], timeout: timeout + 30))
    }

    /// The captured deep link an app would have been opened with (`url`, `params`…), as `waitForMessage`.
    public func waitForDeepLink(scheme: String? = nil, tenant: String? = nil, since: String? = nil, timeout: Double = 10) async throws -> JSONValue {
        try await request("GET", "/deeplinks/wait", query: ["scheme": scheme, "tenant": tenant, "since": since, "timeout": String(timeout)],
                          timeout: timeout + 30)
    }

    // MARK: The clock

    public func now() async throws -> Date { try Self.instant(try await request("GET", "/clock")) }

    @discardableResult
    public func freeze(at instant: Date? = nil) async throws -> Date {
        let body: JSONValue = instant.map { ["at": .string(ISO8601DateFormatter().string(from: $0))] } ?? [:]
        return try Self.instant(try await request("POST", "/clock/freeze", body: body))
    }

    /// Moves the clock on: codes, tokens and cooldowns follow it.
    @discardableResult
    public func advance(by duration: Duration) async throws -> Date {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return try Self.instant(try await request("POST", "/clock/advance", body: ["seconds": .number(seconds)]))
    }

    @discardableResult
    public func resume() async throws -> Date { try Self.instant(try await request("POST", "/clock/resume", body: [:])) }

    /// Runs `body` with the clock frozen (advance it by hand), and lets it run again after.
    public func withFrozenClock<T>(at instant: Date? = nil, _ body: () async throws -> T) async throws -> T {
        try await freeze(at: instant)
        return try await Self.ensuring(body) { try await self.resume() }
    }

    // MARK: Faults

    /// Adds a fault rule; answers it with its id.
    @discardableResult
    public func addFault(_ rule: JSONValue) async throws -> JSONValue {
        guard let added = try await request("POST", "/faults", body: rule)["rules"]?.array?.first else {
            throw FauxthClientError.control(status: 0, code: "no_rule", message: "the control API added no rule")
        }
        return added
    }

    public func removeFault(_ id: String) async throws { try await request("DELETE", "/faults/\(Self.segment(id))") }

    /// Runs `body` with a fault rule in force, and removes it after.
    public func withFault<T>(_ rule: JSONValue, _ body: (JSONValue) async throws -> T) async throws -> T {
        let added = try await addFault(rule)
        let id = added["id"]?.string ?? ""
        return try await Self.ensuring({ try await body(added) }) { try await self.removeFault(id) }
    }

    // MARK: Tenants, users, events

    /// A new tenant of `dialect` (`supabase`, `firebase`, `cognito`); without an id, the server picks a fresh one.
    @discardableResult
    public func createTenant(_ dialect: String, id: String? = nil, fields: [String: JSONValue] = [:]) async throws -> JSONValue {
        var body = fields
        body["dialect"] = .string(dialect)
        if let id { body["id"] = .string(id) }
        return try await request("POST", "/tenants", body: .object(body))
    }

    public func deleteTenant(_ id: String) async throws { try await request("DELETE", "/tenants/\(Self.segment(id))") }

    /// Runs `body` with a tenant made for it, deleted after: one per test keeps parallel tests apart.
    public func withTenant<T>(_ dialect: String, fields: [String: JSONValue] = [:], _ body: (_ tenantId: String) async throws -> T) async throws -> T {
        let id = try await createTenant(dialect, fields: fields)["id"]?.string ?? ""
        return try await Self.ensuring({ try await body(id) }) { try await self.deleteTenant(id) }
    }

    public func users(in tenant: String, email: String? = nil) async throws -> [JSONValue] {
        try await request("GET", "/tenants/\(Self.segment(tenant))/users", query: ["email": email])["users"]?.array ?? []
    }

    /// Every tenant's users (those `query` finds: a substring of an email, phone or username, or an id), each naming
    /// its `tenant`.
    public func usersInEveryTenant(matching query: String? = nil) async throws -> [JSONValue] {
        try await request("GET", "/users", query: ["q": query])["users"]?.array ?? []
    }

    @discardableResult
    public func createUser(in tenant: String, _ fields: [String: JSONValue]) async throws -> JSONValue {
        try await request("POST", "/tenants/\(Self.segment(tenant))/users", body: .object(fields))
    }

    public func events(type: String? = nil, tenant: String? = nil) async throws -> [JSONValue] {
        try await request("GET", "/events", query: ["type": type, "tenant": tenant])["events"]?.array ?? []
    }

    /// Runs `body`, then `cleanup` whether it threw or not; `body`'s error wins over the cleanup's.
    private static func ensuring<T>(_ body: () async throws -> T, cleanup: () async throws -> Void) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            try? await cleanup()
            throw error
        }
        try await cleanup()
        return result
    }

    private static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    private static func instant(_ clock: JSONValue) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let text = clock["now"]?.string, let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
            throw FauxthClientError.control(status: 0, code: "bad_clock", message: "the clock answer had no readable now")
        }
        return date
    }
}

/// A captured email or SMS, with its first code and link at hand.
public struct Message: Sendable, Equatable {
    public let json: JSONValue
    public init(_ json: JSONValue) { self.json = json }
    public var id: String { json["id"]?.string ?? "" }
    public var to: String { json["to"]?.string ?? "" }
    public var codes: [String] { json["codes"]?.array?.compactMap(\.string) ?? [] }
    public var links: [String] { json["links"]?.array?.compactMap(\.string) ?? [] }
    public var code: String? { codes.first }
    public var link: String? { links.first }
}

public enum FauxthClientError: Error, Equatable, CustomStringConvertible {
    /// The binary could not be started, or never said it was ready.
    case cannotStart(String)
    /// The control API answered with an error.
    case control(status: Int, code: String, message: String)

    public var description: String {
        switch self {
        case .cannotStart(let reason): "cannot start fauxth: \(reason)"
        case .control(let status, let code, let message): "\(status) \(code): \(message)"
        }
    }
}

/// The last 64 KiB a pipe delivered, and whether it has closed.
private final class OutputTail: @unchecked Sendable {
    private let lock = NSLock()
    private var kept = Data()
    private var closed = false

    func close() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        kept.append(data)
        if kept.count > 64 * 1024 { kept.removeFirst(kept.count - 64 * 1024) }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: kept, as: UTF8.self)
    }
}

/// Splits what a pipe delivers into lines (a chunk may end mid-line).
private final class LineBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = Data()

    func append(_ data: Data) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
        return lines
    }
}
