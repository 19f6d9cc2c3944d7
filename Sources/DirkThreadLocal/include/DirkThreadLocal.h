// The one piece of Dirk written in C: a thread-local pointer, which Swift cannot declare.
//
// Every provider call that runs a factory needs its thread's resolution context. Reading it from a
// C thread-local variable costs one load, where `pthread_getspecific` costs a call and Swift's
// lazy global for the key another. `ResolutionContext.current` owns the pointer: it stores it on a
// thread's first resolution and clears it when the thread exits.
#ifndef DIRK_THREAD_LOCAL_H
#define DIRK_THREAD_LOCAL_H

// The default model, so that a shared library holding Dirk can also be loaded with `dlopen`. Linked
// into an executable, as SwiftPM links it, the linker turns the access into one load from the
// thread pointer.
extern __thread void *_Nullable dirk_thread_context;

/// The calling thread's resolution context, or NULL before its first resolution.
static inline void *_Nullable dirk_get_thread_context(void) { return dirk_thread_context; }

/// Sets the calling thread's resolution context.
static inline void dirk_set_thread_context(void *_Nullable context) { dirk_thread_context = context; }

/// An address that differs from one thread to another (the thread's own variable), which lock-free
/// readers use to pick a starting slot; computing it reads no memory.
static inline void *_Nonnull dirk_thread_marker(void) { return &dirk_thread_context; }

#endif
