// What `cachedread` needs that Swift cannot declare: a thread-local variable, whose address tells
// threads apart as Dirk's `dirk_thread_marker()` does, and the processor's spin-wait hint.
#ifndef CACHED_READ_SUPPORT_H
#define CACHED_READ_SUPPORT_H

// Declared as Dirk declares `dirk_thread_context`, so that reading its address costs the same.
extern __thread void *_Nullable cachedread_thread_variable;

/// An address that differs from one thread to another (the thread's own variable); computing it
/// reads no memory. A copy of Dirk's `dirk_thread_marker()`.
static inline void *_Nonnull cachedread_thread_marker(void) { return &cachedread_thread_variable; }

/// Tells the processor that the thread is spinning: `pause` on x86, `yield` on Arm.
static inline void cachedread_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

#endif
