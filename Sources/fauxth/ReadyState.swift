import AuthCore
import Server
import Synchronization

/// Hands the built application to the ready callback, which the server calls once every listener is up.
final class ReadyState: Sendable {
    static let shared = ReadyState()
    private let box = Mutex<FauxthApplication?>(nil)

    var app: FauxthApplication? { box.withLock { $0 } }
    func set(_ app: FauxthApplication) { box.withLock { $0 = app } }
}
