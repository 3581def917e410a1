import Server
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
/// A stdout nobody reads blocks the write, as it did before, but lines past `limit` are dropped rather than kept,
/// as the feed's stream dropped the oldest a slow reader had not taken.
final class LogOutput: Sendable {
    private let pending = Mutex<[UInt8]>([])
    /// How long a line may wait for others to share its write.
    static let delay = Duration.milliseconds(1)
    static let limit = 4 << 20

    static let standard = LogOutput()

    /// Adds `line` (without its newline) to the next write.
    func append(_ line: String) {
        let first = pending.withLock { buffer -> Bool in
            guard buffer.count < Self.limit else { return false }
            let wasEmpty = buffer.isEmpty
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
            return wasEmpty
        }
        // The first line of a batch schedules its write; on the current event loop when called from one.
        if first { onAnEventLoop(after: Self.delay) { self.flush() } }
    }

    /// Writes every line appended so far, now.
    func flush() {
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
