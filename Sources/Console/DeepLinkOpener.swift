import AuthCore
import Foundation

/// Opens captured deep links where the app runs (`--open-deeplinks`): in the booted iOS simulator, in the
/// connected Android emulator, or through a command of the user's. The tester no longer copies a link out of
/// the console into a terminal; the app opens as it would on a phone.
public struct DeepLinkOpener: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// `xcrun simctl openurl booted URL`.
        case simctl
        /// `adb shell am start -W -a android.intent.action.VIEW -d URL`, the URL quoted for the device's shell.
        case adb
        /// A shell command run with the URL as its last argument (`$1`), so the URL is never parsed by the shell.
        case command(String)
    }

    public let target: Target

    public static let simctl = DeepLinkOpener(target: .simctl)
    public static let adb = DeepLinkOpener(target: .adb)

    private init(target: Target) { self.target = target }

    /// `simctl`, `adb`, or a command.
    public init?(_ spec: String) {
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "": return nil
        case "simctl": target = .simctl
        case "adb": target = .adb
        default: target = .command(trimmed)
        }
    }

    /// What `--open-deeplinks` said, for the info answer and events.
    public var name: String {
        switch target {
        case .simctl: "simctl"
        case .adb: "adb"
        case .command(let command): command
        }
    }

    /// The program and arguments that open `url` (the program is looked up on `PATH`).
    public func command(for url: String) -> [String] {
        switch target {
        case .simctl:
            return ["xcrun", "simctl", "openurl", "booted", url]
        case .adb:
            // `adb shell` joins its arguments and hands them to the device's shell, which would cut the URL at its
            // first `&` (every fragment with two tokens has one) unless it is quoted for that shell too.
            return ["adb", "shell", "am start -W -a android.intent.action.VIEW -d \(Self.shellQuoted(url))"]
        case .command(let command):
            return ["sh", "-c", "\(command) \"$1\"", "fauxth-open-deeplink", url]
        }
    }

    /// The same, as one line a person can paste into a terminal.
    public func commandLine(for url: String) -> String {
        command(for: url).map(Self.quotedForDisplay).joined(separator: " ")
    }

    /// How a run went.
    public struct Outcome: Sendable, Equatable {
        public var command: [String]
        /// The exit status; nil when the program could not be started.
        public var status: Int32?
        /// The tail of what it wrote to stderr, or why it could not start.
        public var error: String?
        public var succeeded: Bool { status == 0 }
    }

    /// Runs the command for `url` and waits for it (at most `timeout`, then it is stopped).
    public func open(_ url: String, timeout: Duration = .seconds(15)) async -> Outcome {
        let command = command(for: url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // Into a file, not a pipe: reading a pipe to its end would wait for anything the command left running in the
        // background (a GUI app it launched keeps the pipe open), and on the event loops nothing may wait.
        // mkstemp names and creates it in one step (no name of ours to collide).
        var template = Array((FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-open-XXXXXX").path).utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            return Outcome(command: command, status: nil, error: "cannot create a file for its stderr in \(FileManager.default.temporaryDirectory.path)")
        }
        let stderrPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let stderr = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? stderr.close(); try? FileManager.default.removeItem(atPath: stderrPath) }
        process.standardError = stderr
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        do {
            try process.run()
        } catch {
            return Outcome(command: command, status: nil, error: "\(error)")
        }
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        watchdog.cancel()
        let written = String(decoding: (FileManager.default.contents(atPath: stderrPath) ?? Data()).suffix(2000), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return Outcome(command: command, status: status, error: written.isEmpty ? nil : written)
    }

    /// Opens `link` and records the outcome as a `deeplink.opened` event.
    @discardableResult
    public func open(_ link: DeepLink, emulator: Emulator) async -> Outcome {
        let outcome = await open(link.url)
        var detail: [String: JSON] = ["deeplink_id": .string(link.id), "url": .string(link.url), "opener": .string(name),
                                      "command": .array(outcome.command.map(JSON.string)), "succeeded": .bool(outcome.succeeded)]
        if let status = outcome.status { detail["status"] = .int(Int(status)) }
        if let error = outcome.error { detail["error"] = .string(error) }
        emulator.record(.deepLinkOpened, tenant: link.tenant, userId: link.userId, detail: detail)
        return outcome
    }

    /// `text` in single quotes for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A word as a person would type it: bare when nothing in it is special to the shell, in double quotes when it
    /// holds single quotes (adb's device command) and nothing double quotes treat specially, else in single quotes.
    static func quotedForDisplay(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_./:=@,+%".contains($0) }) { return text }
        if text.contains("'"), !text.contains(where: { "\"$`\\!".contains($0) }) { return "\"" + text + "\"" }
        return shellQuoted(text)
    }
}
