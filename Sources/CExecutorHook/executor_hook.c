#include "executor_hook.h"
#include <stdint.h>

// The Swift runtime's hook variable. SwiftNIO finds it with dlsym, which works only where the runtime
// is a shared library: with --static-swift-stdlib (the release binary) the symbol is not in the dynamic
// table and the lookup fails quietly. Named here, the linker resolves it either way.
extern const void *swift_task_enqueueGlobal_hook;

// The runtime's executor reference (`SerialExecutorRef`): its identity and implementation words; both zero is the
// generic executor. `swift_job_run` takes it by value in the Swift calling convention, which clang's `swiftcall`
// follows (a struct of two words goes in two registers).
typedef struct {
    const void *identity;
    uintptr_t implementation;
} fauxth_serial_executor_ref;

extern void swift_job_run(void *job, fauxth_serial_executor_ref executor) __attribute__((swiftcall));

// Defined in Swift (`@_cdecl`): hands the job to one of the event loops.
extern void fauxth_enqueue_job_on_a_loop(void *job);

// The hook itself, in the runtime's calling convention: the job, and the runtime's own enqueue (unused).
__attribute__((swiftcall)) static void fauxth_enqueue_global(void *job, void *original) {
    (void)original;
    fauxth_enqueue_job_on_a_loop(job);
}

bool fauxth_install_enqueue_global_hook(void) {
    const void *expected = 0;
    const void *hook = (const void *)&fauxth_enqueue_global;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, hook, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

void fauxth_run_job_on_generic_executor(void *job) {
    fauxth_serial_executor_ref generic = { 0, 0 };
    swift_job_run(job, generic);
}
