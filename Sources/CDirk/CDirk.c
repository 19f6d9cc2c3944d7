#include "CDirk.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

__thread void *_Nullable dirk_thread_context = 0;

// Written once, while the program loads, before any Swift code runs; read only after.
static pthread_t dirk_main_thread;

__attribute__((constructor)) static void dirk_record_main_thread(void) {
    dirk_main_thread = pthread_self();
}

bool dirk_is_main_thread(void) {
    return pthread_equal(pthread_self(), dirk_main_thread) != 0;
}

// The concurrency runtime's entry point for the running task, declared as the runtime's ABI header
// (swift/Runtime/Concurrency.h) declares it: exported on every platform that has Swift concurrency,
// with the Swift calling convention (`SWIFT_CC(swift)`, clang's `swiftcall`), taking nothing and
// returning the task unretained, or NULL outside any task.
extern void *_Nullable swift_task_getCurrent(void) __attribute__((swiftcall));

uintptr_t dirk_current_task(void) {
    return (uintptr_t)swift_task_getCurrent();
}

void dirk_unlock(uintptr_t *_Nonnull lock) {
    atomic_store_explicit((_Atomic(uintptr_t) *)lock, 0, memory_order_release);
}

// The runtime's entry points behind `dirk_retain_n` and `dirk_release_n`, declared here rather than
// in CDirk.h so that Swift code never calls them itself (see CDirk.h).
#if defined(__APPLE__)
extern void *_Nullable swift_unknownObjectRetain_n(void *_Nullable object, int n);
extern void swift_unknownObjectRelease_n(void *_Nullable object, int n);
#else
extern void *_Nonnull swift_retain_n(void *_Nonnull object, uint32_t n);
extern void swift_release_n(void *_Nonnull object, uint32_t n);
#endif

void dirk_retain_n(void *_Nonnull object, uint32_t n) {
#if defined(__APPLE__)
    swift_unknownObjectRetain_n(object, (int)n);
#else
    swift_retain_n(object, n);
#endif
}

void dirk_release_n(void *_Nonnull object, uint32_t n) {
#if defined(__APPLE__)
    swift_unknownObjectRelease_n(object, (int)n);
#else
    swift_release_n(object, n);
#endif
}

void dirk_lock_wait(uintptr_t *_Nonnull lock) {
    // Critical sections are a few loads and stores: most waits end while spinning. A holder that
    // was preempted is let run by yielding, and then by sleeping, so that a waiter of higher
    // priority never keeps it off the processor for long.
    for (unsigned attempt = 0;; attempt++) {
        if (atomic_load_explicit((_Atomic(uintptr_t) *)lock, memory_order_relaxed) == 0 &&
            dirk_lock_try(lock)) {
            return;
        }
        if (attempt < 64) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
            __asm__ __volatile__("yield");
#endif
        } else if (attempt < 128) {
            sched_yield();
        } else {
            unsigned shift = attempt - 128 < 10 ? attempt - 128 : 10;
            struct timespec pause = {0, 1000L << shift};  // 1 µs, doubling to about 1 ms
            nanosleep(&pause, 0);
        }
    }
}
