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
enum ConcurrencyOnEventLoops {
    /// The runtime's hook type: the job, and the runtime's own enqueue (unused: every job goes to a loop).
    private typealias EnqueueGlobalHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    /// Installs the hook; answers whether it was installed (false if one already was). Call once, before
    /// the first task starts.
    @discardableResult
    static func install() -> Bool {
        withUnsafeTemporaryAllocation(of: EnqueueGlobalHook.self, capacity: 1) { storage in
            // `any()` keeps a job on the current loop when called from one of the group's loops, so a
            // handler resumed by its connection's I/O stays on that thread.
            //
            // `enqueue` runs the job as the loop's serial executor, so a task's next call into a nonisolated
            // async function of Hummingbird's or NIO's hops back through this hook (`swift_task_switch`, about
            // 8% of a sign-in's CPU in perf). Running jobs on the generic executor instead removes those hops and
            // has been measured three times (internals.md, "Handlers run on NIO's event loops"): the loops then
            // sleep and are woken more often on two cores shared with the load's client, and every time every
            // sign-in's share of the health answer came out lower (the CPU per sign-in lower in the first two
            // runs, higher in the third). Keep it unless that changes.
            storage.baseAddress!.initialize(to: { job, _ in
                MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(job))
            })
            return storage.baseAddress!.withMemoryRebound(to: UnsafeRawPointer.self, capacity: 1) {
                fauxth_install_enqueue_global_hook($0.pointee)
            }
        }
    }
}
