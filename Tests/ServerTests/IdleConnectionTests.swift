import FauxthTesting
import HummingbirdTesting
import NIOCore
import NIOPosix
import Server
import Testing

/// A connection whose first request's head never ends is closed after the idle timeout, on a listener that takes
/// WebSocket upgrades (the main port, a Supabase project's), whose first request is read by a different pipeline than
/// the later ones (a connection idle between requests, or in a later request's head, is Hummingbird's own handler's to
/// close; the full-size fuzz run checks the first head at the real minute). The timeout
/// is wall time, not the emulator's clock; here it is shortened to five seconds so the tests wait for what they check
/// rather than for a minute (less, and a machine busy with the other suites in parallel can take that long between a
/// connection's accept and its first bytes).
@Suite struct IdleConnectionTests {
    static let idleTimeout = TimeAmount.seconds(5)

    /// What a raw connection to `port` got back after sending `bytes`, and how long after it was opened the server
    /// closed it (nil if it was still open after `limit`).
    static func exchange(_ bytes: String, port: Int, limit: Duration = .seconds(30)) async throws -> (answer: String, closedAfter: Duration?) {
        // From before the connection exists, so the server's timer (set at its accept) cannot have started earlier.
        let started = ContinuousClock.now
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await withThrowingTaskGroup(of: (answer: String, closedAfter: Duration?).self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    // On a loaded machine the server may have closed it already: that is an answer too.
                    try? await outbound.write(ByteBuffer(string: bytes))
                    var answer = ""
                    do {
                        for try await chunk in inbound { answer += String(buffer: chunk) }
                    } catch {}
                    return (answer, ContinuousClock.now - started)
                }
            }
            group.addTask { try await Task.sleep(for: limit); return ("", nil) }
            let first = try await group.next() ?? ("", nil)
            group.cancelAll()
            return first
        }
    }

    static func harness() throws -> Harness {
        try Harness { $0.idleTimeout = idleTimeout }
    }

    @Test(arguments: ["GET /_emu/v1/hea", "POST /auth/v1/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"])
    func aFirstRequestWhoseHeadNeverEndsIsClosed(_ partial: String) async throws {
        try await Self.harness().run(.live) { client in
            let (answer, closed) = try await Self.exchange(partial, port: try #require(client.port))
            #expect(closed != nil, "the connection was still open after 30 s")
            #expect(closed.map { $0 >= .seconds(5) } == true)
            #expect(answer == "")
        }
    }
}
