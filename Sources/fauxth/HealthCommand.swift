import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `fauxth health`: asks a running Fauxth for `/_emu/v1/health` and exits 0 when it answers `ok`.
///
/// The container image's health check runs it, so the runtime image needs no curl (and no libcurl), and
/// a CI script can wait for the server with it (`--wait`) without a retry loop of its own.
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check that a Fauxth server answers its health endpoint (exit 0 if so, 1 if not).")

    @Option(help: "The server's address.")
    var host = "127.0.0.1"

    @Option(help: "The server's port.")
    var port = 9099

    @Option(help: ArgumentHelp("Keep asking for up to this many seconds, until the server answers (e.g. right after starting it).", valueName: "seconds"))
    var wait: Double = 0

    @Option(help: ArgumentHelp("How long one attempt may take.", valueName: "seconds"))
    var timeout: Double = 2

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port: expected 1-65535") }
        guard wait >= 0, timeout > 0 else { throw ValidationError("--wait and --timeout: expected a positive number of seconds") }
    }

    func run() async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while true {
            let problem: String
            do {
                let (status, body) = try await HealthProbe.get(host: host, port: port, timeout: .milliseconds(Int64(timeout * 1000)))
                if status == 200, body.contains(#""status":"ok""#) {
                    print("ok")
                    return
                }
                problem = "answered \(status)"
            } catch {
                problem = "\(error)"
            }
            guard ContinuousClock.now < deadline else {
                FileHandle.standardError.write(Data("unhealthy: http://\(host):\(port)/_emu/v1/health: \(problem)\n".utf8))
                throw ExitCode(1)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// One HTTP/1.1 GET of the health endpoint over a plain socket: the response is small and the connection
/// closes after it, so reading to the end is the whole client.
enum HealthProbe {
    struct Timeout: Error, CustomStringConvertible { var description: String { "no answer in time" } }
    struct Malformed: Error, CustomStringConvertible { var description: String { "not an HTTP response" } }

    static func get(host: String, port: Int, timeout: TimeAmount) async throws -> (status: Int, body: String) {
        try await withThrowingTaskGroup(of: (status: Int, body: String).self) { group in
            group.addTask { try await exchange(host: host, port: port, connectTimeout: timeout) }
            group.addTask {
                try await Task.sleep(for: .nanoseconds(timeout.nanoseconds))
                throw Timeout()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(host: String, port: Int, connectTimeout: TimeAmount) async throws -> (status: Int, body: String) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let response = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET /_emu/v1/health HTTP/1.1\r\nHost: \(shownHost):\(port)\r\nConnection: close\r\n\r\n"))
            var received = ByteBuffer()
            for try await chunk in inbound { received.writeImmutableBuffer(chunk) }
            return String(buffer: received)
        }
        // "HTTP/1.1 200 OK\r\n…\r\n\r\n{…}"
        let statusLine = response.prefix { $0 != "\r" }.split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else { throw Malformed() }
        let body = response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}
