#ifndef FAUXTH_EXECUTOR_HOOK_H
#define FAUXTH_EXECUTOR_HOOK_H

#include <stdbool.h>

/// Installs Swift Concurrency's global enqueue hook (`swift_task_enqueueGlobal_hook`), which hands every global
/// job to `fauxth_enqueue_job_on_a_loop` (defined in Swift), unless a hook is already there; answers whether it was
/// installed.
bool fauxth_install_enqueue_global_hook(void);

/// Runs a job on the runtime's generic executor, as Swift's own global pool runs its jobs
/// (`swift_job_run(job, SerialExecutorRef::generic())`).
void fauxth_run_job_on_generic_executor(void *job);

#endif
