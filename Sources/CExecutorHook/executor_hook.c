#include "executor_hook.h"

// The Swift runtime's hook variable. SwiftNIO finds it with dlsym, which works only where the runtime
// is a shared library: with --static-swift-stdlib (the release binary) the symbol is not in the dynamic
// table and the lookup fails quietly. Named here, the linker resolves it either way.
extern const void *swift_task_enqueueGlobal_hook;

bool fauxth_install_enqueue_global_hook(const void *hook) {
    const void *expected = 0;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, hook, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
