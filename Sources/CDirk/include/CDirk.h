// The part of Dirk written in C: what Swift cannot declare without the `Synchronization` module,
// which needs macOS 15 and iOS 18, or cannot declare at all.
//
// - A thread-local pointer to the calling thread's resolution context, and the running task.
// - Atomic operations on one machine word, through C11 <stdatomic.h> (the way swift-atomics began).
// - A lock of one word: a compare-and-exchange to take it, a releasing store to give it back.
// - Two entry points of the Swift runtime that tell whether an object has begun deinitializing
//   (and the flag that one of them reads, read inline where it lies in the object),
//   and two that add or give back several references at once.
//
// Swift code uses these through the wrappers in Sources/Dirk/Internal/Sync and
// Sources/Dirk/Internal/Unsafe; nothing else calls them.
#ifndef CDIRK_H
#define CDIRK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

// MARK: Thread-local resolution context

// The default TLS model, so that a shared library holding Dirk can also be loaded with `dlopen`.
// Linked into an executable, the access is one load from the thread pointer.
extern __thread void *_Nullable dirk_thread_context;

/// The calling thread's resolution context, or NULL before its first resolution.
static inline void *_Nullable dirk_get_thread_context(void) { return dirk_thread_context; }

/// Sets the calling thread's resolution context.
static inline void dirk_set_thread_context(void *_Nullable context) { dirk_thread_context = context; }

/// An address that differs from one running thread to another (the thread's own variable); reads
/// no memory.
static inline uintptr_t dirk_thread_marker(void) { return (uintptr_t)&dirk_thread_context; }

// MARK: The current task

/// The address of the Swift task that runs the caller, or 0 outside any task: read as a number,
/// never followed. Defined in CDirk.c, which calls the concurrency runtime's own entry point
/// (`withUnsafeCurrentTask` calls the same one, then runs as generic code around it).
uintptr_t dirk_current_task(void);

// MARK: The main thread

/// Whether the calling thread is the process's main thread: the one that loaded Dirk, which is
/// the main thread when Dirk is linked into the program or into a library it loads at launch.
bool dirk_is_main_thread(void);

// MARK: Atomic words
//
// Each function treats `word` as an `_Atomic(uintptr_t)`. Swift allocates the words (never on the
// stack) and touches them only through these functions, so every access is atomic.

static inline uintptr_t dirk_load_relaxed(uintptr_t *_Nonnull word) {
    return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_relaxed);
}

static inline uintptr_t dirk_load_acquire(uintptr_t *_Nonnull word) {
    return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_acquire);
}

static inline uintptr_t dirk_load_seq_cst(uintptr_t *_Nonnull word) {
    return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_seq_cst);
}

static inline void dirk_store_relaxed(uintptr_t *_Nonnull word, uintptr_t value) {
    atomic_store_explicit((_Atomic(uintptr_t) *)word, value, memory_order_relaxed);
}

static inline void dirk_store_release(uintptr_t *_Nonnull word, uintptr_t value) {
    atomic_store_explicit((_Atomic(uintptr_t) *)word, value, memory_order_release);
}

static inline void dirk_store_seq_cst(uintptr_t *_Nonnull word, uintptr_t value) {
    atomic_store_explicit((_Atomic(uintptr_t) *)word, value, memory_order_seq_cst);
}

/// Adds `delta` (which may wrap, to subtract) and returns the previous value.
static inline uintptr_t dirk_fetch_add_relaxed(uintptr_t *_Nonnull word, uintptr_t delta) {
    return atomic_fetch_add_explicit((_Atomic(uintptr_t) *)word, delta, memory_order_relaxed);
}

/// Lowers by one the number that the bits `mask` of the word count in units of `unit` (the lowest
/// bit of `mask`), unless it is zero, with acquiring order, and returns the word as it was before;
/// returns zero, and changes nothing, when the number is zero, whatever the other bits hold. What a
/// cached read calls to take one of its cell's spare references (`SpareReferences`).
static inline uintptr_t dirk_take_counted(uintptr_t *_Nonnull word, uintptr_t mask, uintptr_t unit) {
    uintptr_t current = atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_relaxed);
    while ((current & mask) != 0) {
        if (atomic_compare_exchange_weak_explicit(
                (_Atomic(uintptr_t) *)word, &current, current - unit, memory_order_acquire,
                memory_order_relaxed)) {
            return current;
        }
    }
    return 0;
}

/// Stores `value` and returns what the word held, as one atomic change.
static inline uintptr_t dirk_exchange_relaxed(uintptr_t *_Nonnull word, uintptr_t value) {
    return atomic_exchange_explicit((_Atomic(uintptr_t) *)word, value, memory_order_relaxed);
}

// MARK: Lock
//
// 0 when free, 1 when held. Dirk holds these locks for a few loads and stores, never while user
// code runs, so a waiter spins briefly, then yields, then sleeps in growing steps (see CDirk.c).

/// Takes the lock if it is free; returns whether it did.
static inline bool dirk_lock_try(uintptr_t *_Nonnull lock) {
    uintptr_t expected = 0;
    return atomic_compare_exchange_strong_explicit(
        (_Atomic(uintptr_t) *)lock, &expected, 1, memory_order_acquire, memory_order_relaxed);
}

/// Waits until the lock is free and takes it.
void dirk_lock_wait(uintptr_t *_Nonnull lock);

/// Takes the lock, waiting while another thread holds it.
static inline void dirk_lock(uintptr_t *_Nonnull lock) {
    if (!dirk_lock_try(lock)) dirk_lock_wait(lock);
}

/// Gives the lock back. Only the thread that took it may call this.
///
/// Defined in CDirk.c, not inline, on purpose: code that copies an object reference out of memory
/// that the lock guards retains the object before it gives the lock back, and the retain must stay
/// before the releasing store. A call into code compiled apart is one that Swift must assume may
/// read or release any object, so no retain before it may be moved after it: the same footing as
/// `pthread_mutex_unlock` or `os_unfair_lock_unlock`, the unlock of every other lock Swift code
/// uses. That keeps `Locked.withLock` sound for any value it returns.
void dirk_unlock(uintptr_t *_Nonnull lock);

/// Sets a new lock free; call it once, before any other thread can see the lock.
static inline void dirk_lock_init(uintptr_t *_Nonnull lock) {
    atomic_init((_Atomic(uintptr_t) *)lock, 0);
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

/// A native Swift object's second word, which holds its reference count while the count lies in
/// the object (see `dirk_is_deinitializing`); also a test hook.
static inline uint64_t dirk_count_word(void *_Nonnull object) {
    return atomic_load_explicit(
        (_Atomic(uint64_t) *)((char *)object + sizeof(void *)), memory_order_relaxed);
}

/// Whether `object`, a native Swift object that the caller holds, has begun to deinitialize:
/// `swift_isDeallocating` without the call, where the answer lies in the object itself.
///
/// A native Swift object's second word is its reference count (the runtime's HeapObject.h). On a
/// 64-bit platform, while the count's bit 63 (`UseSlowRC`) is clear, the count lies in that word,
/// and its bit 32 (`IsDeiniting`) is the flag that `swift_isDeallocating` reads (the runtime's
/// RefCount.h, `RefCountBitOffsets<8>`); the runtime sets it, atomically, before any `deinit` runs.
/// With bit 63 set, the count lies in a side table (the object has weak references) or the object
/// is immortal: the runtime answers. The layout is the runtime's own, not a promise of it, so the
/// count is read only where the runtime is the one the program was built and tested with: on
/// 64-bit platforms other than Apple's, whose runtime ships with the operating system and may
/// change under a built program. Elsewhere the runtime always answers. A test checks that the two
/// answers agree and that both ways are taken: with and without a side table, inside a `deinit`
/// and outside. (Speed only: the call was about a tenth of a cached read's instructions.)
static inline bool dirk_is_deinitializing(void *_Nonnull object) {
#if UINTPTR_MAX == UINT64_MAX && !defined(__APPLE__)
    uint64_t count = dirk_count_word(object);
    if ((count >> 63) == 0) return (count >> 32) & 1;
#endif
    return swift_isDeallocating(object);
}

// MARK: Several references at once
//
// `n` retains or releases made as one atomic change of the object's count, through the runtime's
// own entry points (exported and documented in its HeapObject.h, on every platform), which
// CDirk.c calls. On Apple platforms an `AnyObject` may be an Objective-C object, which the
// runtime's `unknownObject` entry points also count; elsewhere every object is a native Swift
// object.

/// Adds `n` strong references to `object`, which the caller holds.
///
/// Defined in CDirk.c, not inline, and the runtime's functions declared only there: inlined into
/// Swift code, their calls would reach Swift's ARC optimizer, which knows them by name and may move
/// them past other retains and releases (swift-atomics wraps them the same way). A call into code
/// compiled apart is one it must keep in place.
void dirk_retain_n(void *_Nonnull object, uint32_t n);

/// Gives back `n` strong references to `object`, which the caller holds beyond them; defined in
/// CDirk.c for the same reason as `dirk_retain_n`.
void dirk_release_n(void *_Nonnull object, uint32_t n);

#endif
