import AuthCore
import Synchronization

/// Hands the built emulator to the ready callback, which the server calls once it is listening.
final class ReadyState: Sendable {
    static let shared = ReadyState()
    private let box = Mutex<Emulator?>(nil)

    var emulator: Emulator? { box.withLock { $0 } }
    func setEmulator(_ emulator: Emulator) { box.withLock { $0 = emulator } }
}
