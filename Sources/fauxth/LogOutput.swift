import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's stdout: lines appended as they come (the live feed, the request log) and written in batches, within
/// about a millisecond, in the order they came. A write per line was a system call per sign-in, and a task woken for
/// each event: about a twentieth of a password sign-in's CPU under load (scripts/bench).
///
/// The batches are written by a thread of their own. A stdout nobody reads (a test that starts the server with a pipe
/// and never drains it) blocks that thread, not an event loop, so requests go on being answered; lines past `limit`
/// are dropped meanwhile, as the feed's stream dropped the oldest a slow reader had not taken.
final class LogOutput: Sendable {
    private let pending = Mutex<[UInt8]>([])
    /// Held while a batch is taken and written, so batches reach stdout in the order their lines came, whoever writes.
    private let writing = Mutex<Void>(())
    /// Signalled by the first line of each batch.
    private let batchStarted = DispatchSemaphore(value: 0)
    /// How long a line may wait for others to share its write, in seconds.
    static let delay = 0.001
    static let limit = 4 << 20

    static let standard = LogOutput()

    private init() {
        let writer = Thread { [unowned self] in
            while true {
                batchStarted.wait()
                Thread.sleep(forTimeInterval: Self.delay)
                flush()
            }
        }
        writer.name = "fauxth-stdout"
        writer.start()
    }

    /// Adds `line` (without its newline) to the next write.
    func append(_ line: String) {
        let first = pending.withLock { buffer -> Bool in
            guard buffer.count < Self.limit else { return false }
            let wasEmpty = buffer.isEmpty
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
            return wasEmpty
        }
        if first { batchStarted.signal() }
    }

    /// Writes what is waiting as the process ends, but gives stdout at most `seconds` to take it: a stdout nobody reads
    /// would otherwise keep the process from ending (its lines are lost either way).
    func finish(within seconds: Double) {
        let written = DispatchSemaphore(value: 0)
        Thread {
            self.flush()
            written.signal()
        }.start()
        _ = written.wait(timeout: .now() + seconds)
    }

    /// Writes every line appended so far, now (after a batch being written, if one is).
    func flush() {
        writing.withLock { _ in
            var bytes: [UInt8] = []
            pending.withLock { swap(&$0, &bytes) }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }
}
