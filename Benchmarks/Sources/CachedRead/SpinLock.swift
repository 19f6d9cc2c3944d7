import CachedReadSupport
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A test-and-test-and-set spin lock on one word, used only through `withLock(_:)`.
///
/// Acquiring loads the word and, when it reads unlocked, takes it with one compare-and-exchange;
/// a waiter retries with the processor's spin hint between tries, and after
/// `spinsBeforeYielding` tries yields its processor between them. Releasing is one plain store
/// with release ordering.
struct SpinLock: ~Copyable, Sendable {
    private let word = Atomic<UInt>(0)

    /// Tries, with the processor's spin hint between them, before a waiter starts to yield.
    static var spinsBeforeYielding: Int { 100 }

    /// Runs `body` while holding the lock.
    @inline(__always)
    borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    @inline(__always)
    private borrowing func lock() {
        if !tryLock() { lockSlowly() }
    }

    /// Test, then test-and-set: the compare-and-exchange, which takes the cache line for writing,
    /// runs only when a plain load has seen the lock free.
    @inline(__always)
    private borrowing func tryLock() -> Bool {
        word.load(ordering: .relaxed) == 0
            && word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    @inline(never)
    private borrowing func lockSlowly() {
        var tries = 1
        while !tryLock() {
            if tries < Self.spinsBeforeYielding {
                cachedread_spin_hint()
            } else {
                sched_yield()
            }
            tries += 1
        }
    }

    @inline(__always)
    private borrowing func unlock() {
        word.store(0, ordering: .releasing)
    }
}
