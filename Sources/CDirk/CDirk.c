#include "CDirk.h"

#include <pthread.h>
#include <stdio.h>

#if !defined(__APPLE__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

_Thread_local void *_Nullable dirk_thread_context = 0;

_Atomic(intptr_t) dirk_task_agents = 0;

// The one platform branch of the C target. Apple's platforms answer directly. On Linux, the main
// thread is the one whose thread id is the process id; Swift cannot call `syscall`, which is
// variadic, hence C. Neither depends on which thread loaded Dirk, so a plug-in loaded with
// `dlopen` on a background thread gets the right answer.
bool dirk_is_main_thread(void) {
#if defined(__APPLE__)
    return pthread_main_np() != 0;
#else
    return (pid_t)syscall(SYS_gettid) == getpid();
#endif
}

// Standard error, unbuffered, for a warning that must not stop the program; the same call on every
// platform, where Swift would need a platform import to reach `stderr`.
void dirk_write_standard_error(const char *text) {
    fputs(text, stderr);
}
