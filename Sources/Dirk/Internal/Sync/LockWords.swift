import CDirk

/// The words of a lock: the lock word, taken with one compare-and-exchange and given back with one
/// releasing store (`CDirk.h`), and, in debug builds, the marker of the thread that holds it.
/// `Locked` keeps them at the start of its elements; a component keeps them in its own memory.
@usableFromInline package enum LockWords {
    /// How many words a lock takes.
    @inlinable package static var count: Int { 2 }

    /// Sets up the lock at `words`, free; call it once, before anyone can take it.
    @inlinable package static func initialize(_ words: UnsafeMutablePointer<UInt>) {
        dirk_lock_init(words)
        (words + 1).initialize(to: 0)
    }

    /// Runs `body` while holding the lock at `words`. In debug builds, stops a thread that takes a
    /// lock it already holds, which would otherwise hang.
    @inlinable @inline(__always)
    package static func withLock<Result, Failure: Error>(
        _ words: UnsafeMutablePointer<UInt>, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if DEBUG
            let marker = ThreadMarker.current
            precondition(
                dirk_load_relaxed(words + 1) != marker,
                "Dirk internal error: a thread took a lock it already holds")
        #endif
        dirk_lock(words)
        #if DEBUG
            dirk_store_relaxed(words + 1, marker)
        #endif
        defer {
            #if DEBUG
                dirk_store_relaxed(words + 1, 0)
            #endif
            dirk_unlock(words)
        }
        return try body()
    }
}
