import CExecutorHook
import NIOCore
import NIOPosix

/// Makes NIO's event loops Swift Concurrency's global executor, so a handler runs on the event loop that
/// reads and writes its connection instead of hopping to Swift's own thread pool and back. On two cores
/// that hop was a futex wake-up and a context switch per suspension: a quarter more sign-ins per second
/// without it (scripts/bench).
///
/// SwiftNIO's `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor` does the same, but
/// finds the runtime's hook with `dlsym`, which fails quietly in a binary linked with
/// `--static-swift-stdlib` (the release build): there the shipped binary ran every handler on the thread
/// pool. Here the hook variable is named at link time (`CExecutorHook`), which works both ways.
///
/// A job runs on its loop *as the global pool runs it*, on the runtime's generic executor
/// (`fauxth_run_job_on_generic_executor`), not through the loop's own `enqueue(_:)`: that runs a job on the loop
/// as a serial executor, so a task resumed there found itself isolated to the loop, and its next hop to the
/// generic executor (every nonisolated async function makes one) went through this hook again and ran a second
/// time. `swift_task_switch` and those second trips were a third of the health answer's CPU (perf).
enum ConcurrencyOnEventLoops {
    /// Installs the hook; answers whether it was installed (false if one already was). Call once, before
    /// the first task starts.
    @discardableResult
    static func install() -> Bool { fauxth_install_enqueue_global_hook() }
}

/// Where the hook (`CExecutorHook`) hands a job: one of the group's loops. `any()` keeps it on the current loop when
/// called from one of them, so a handler resumed by its connection's I/O stays on that thread.
@_cdecl("fauxth_enqueue_job_on_a_loop")
func enqueueJobOnALoop(_ job: UnsafeMutableRawPointer) {
    // Carried as its address, which is all the runtime needs to run it.
    let address = UInt(bitPattern: job)
    MultiThreadedEventLoopGroup.singleton.any().execute { fauxth_run_job_on_generic_executor(UnsafeMutableRawPointer(bitPattern: address)) }
}
