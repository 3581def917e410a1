import AuthCore
import Server
import Synchronization

/// Hands the built application to the ready callback, which the server calls once every listener is up.
final class ReadyState: Sendable {
    static let shared = ReadyState()
    private let box = Mutex<FauxthApplication?>(nil)

    var emulator: Emulator? { box.withLock { $0?.emulator } }
    var listeners: Listeners? { box.withLock { $0?.listeners } }
    func set(_ app: FauxthApplication) { box.withLock { $0 = app } }
}
