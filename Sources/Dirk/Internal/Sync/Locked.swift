import CDirk

/// A value and the lock that guards it, in one allocation, used only through `withLock`: the one
/// lock of Dirk, for every piece of state that threads share and change.
///
/// The lock is a word taken with one compare-and-exchange and given back with one releasing store
/// (`CDirk.h`). Dirk holds it for a few loads and stores at a time: never while user code runs
/// (factories, `configure:` closures, deinitializers, a key's `hash(into:)` or `==`) and never while
/// waiting for anything. Debug builds also record which thread holds it, and stop a thread that
/// takes a lock it already holds, which would otherwise hang.
@usableFromInline package class Locked<State>: ManagedBuffer<State, UInt> {
    // The header (`State`) is read and written only inside `withLock`. The elements are the lock
    // word and, in debug builds, the holder's thread marker; their addresses never move, and they
    // are touched only through CDirk's atomic functions.

    /// A lock guarding `state`, with `extraWords` more words that the caller uses atomically
    /// through `extraWords` (lock-free tables beside the locked state).
    ///
    /// `state` is evaluated once, into the box itself, so that it is not copied.
    @inlinable package static func make(_ state: @autoclosure () -> State, extraWords: Int = 0) -> Self {
        let buffer = create(minimumCapacity: LockWords.count + extraWords) { _ in state() }
        // `create` allocates an instance of the class it is called on, which is `Self`.
        let box = unsafeDowncast(buffer, to: self)
        box.withUnsafeMutablePointerToElements { LockWords.initialize($0) }
        return box
    }

    /// The words after the lock, which `make(_:extraWords:)` reserved. They live as long as the
    /// box, at a fixed address; touch them only through CDirk's atomic functions.
    @inlinable package final var extraWords: UnsafeMutablePointer<UInt> {
        withUnsafeMutablePointerToElements { $0 + LockWords.count }
    }

    /// Runs `body` with the state while holding the lock.
    @inlinable
    package final func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, words) throws(Failure) -> Result in
            try LockWords.withLock(words) { () throws(Failure) -> Result in try body(&state.pointee) }
        }
    }
}

#if DEBUG
    /// A number that differs from one running thread to another.
    @usableFromInline package enum ThreadMarker {
        @usableFromInline package static var current: UInt { dirk_thread_marker() }
    }
#endif
