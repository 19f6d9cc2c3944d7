// The part of Dirk written in C: what Swift cannot declare without the `Synchronization` module,
// which needs macOS 15 and iOS 18.
//
// - A thread-local pointer to the calling thread's resolution context.
// - Atomic operations on one machine word, through C11 <stdatomic.h> (the way swift-atomics began).
// - Whether the calling thread is the process's main thread, asked of the platform.
// - The two entry points of the Swift runtime that tell whether an object has begun to
//   deinitialize, which the runtime exports and documents in its HeapObject.h.
//
// Swift code uses these through the wrappers in Sources/Dirk/Internal/Unsafe; nothing else calls
// them.
#ifndef CDIRK_H
#define CDIRK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

// MARK: Thread-local resolution context

// The default TLS model, so that a shared library holding Dirk can also be loaded with `dlopen`.
extern _Thread_local void *_Nullable dirk_thread_context;

/// The calling thread's resolution context, or NULL before its first resolution.
static inline void *_Nullable dirk_get_thread_context(void) { return dirk_thread_context; }

/// Sets the calling thread's resolution context.
static inline void dirk_set_thread_context(void *_Nullable context) { dirk_thread_context = context; }

// MARK: Task agents

// How many task agents are alive, in every thread: while none is, no task has one.
extern _Atomic(intptr_t) dirk_task_agents;

/// Counts a task agent made (+1) or released (-1).
static inline void dirk_count_task_agents(intptr_t delta) {
    atomic_fetch_add_explicit(&dirk_task_agents, delta, memory_order_relaxed);
}

/// Whether any task agent is alive. A task that made or inherited an agent, which its binding keeps
/// alive, counted it before it asks: the answer is then true, on whichever thread it asks.
static inline bool dirk_task_agents_alive(void) {
    return atomic_load_explicit(&dirk_task_agents, memory_order_relaxed) != 0;
}

// MARK: The main thread

/// Whether the calling thread is the process's main thread, as the platform tells it (see CDirk.c).
bool dirk_is_main_thread(void);

// MARK: Atomic words
//
// Each function treats `word` as an `_Atomic(uintptr_t)`. Swift allocates the words (in a `Locked`
// box's elements, never on the stack) and touches them only through these functions, so every
// access is atomic.

static inline uintptr_t dirk_load_relaxed(uintptr_t *_Nonnull word) {
    return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_relaxed);
}

static inline uintptr_t dirk_load_acquire(uintptr_t *_Nonnull word) {
    return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_acquire);
}

static inline void dirk_store_release(uintptr_t *_Nonnull word, uintptr_t value) {
    atomic_store_explicit((_Atomic(uintptr_t) *)word, value, memory_order_release);
}

/// Adds `delta` (which may wrap, to subtract), acquiring and releasing, and returns the previous
/// value.
static inline uintptr_t dirk_fetch_add(uintptr_t *_Nonnull word, uintptr_t delta) {
    return atomic_fetch_add_explicit((_Atomic(uintptr_t) *)word, delta, memory_order_acq_rel);
}

/// Sets the bits of `bits`, acquiring and releasing, and returns the previous value.
static inline uintptr_t dirk_fetch_or(uintptr_t *_Nonnull word, uintptr_t bits) {
    return atomic_fetch_or_explicit((_Atomic(uintptr_t) *)word, bits, memory_order_acq_rel);
}

// MARK: Object lifetime
//
// Both are exported and documented in the Swift runtime's HeapObject.h, on every platform:
// `swift_tryRetain` is what a weak reference uses to load its object. `object` must point to an
// allocated Swift object: one that is alive, or one whose memory an unowned reference keeps.

/// Adds a strong reference to `object` and returns it, unless the object has begun to
/// deinitialize: then it changes nothing and returns NULL.
void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Whether `object` has begun to deinitialize.
bool swift_isDeallocating(void *_Nonnull object);

// MARK: Warnings

/// Writes `text` to standard error (see CDirk.c).
void dirk_write_standard_error(const char *_Nonnull text);

#endif
