#ifndef FAUXTH_EXECUTOR_HOOK_H
#define FAUXTH_EXECUTOR_HOOK_H

#include <stdbool.h>

/// Installs `hook` as Swift Concurrency's global enqueue hook (`swift_task_enqueueGlobal_hook`) unless
/// one is already there; answers whether it was installed. `hook` is a Swift `@convention(thin)`
/// function of the runtime's hook type, passed as a plain pointer.
bool fauxth_install_enqueue_global_hook(const void *hook);

#endif
