import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Lets lock-free readers of a component's cached instances finish before `reset()` or the
/// component's release lets those instances go.
///
/// A reader announces itself by incrementing one counter, chosen by its thread, of the current
/// epoch, reads and retains the cached instance, and decrements the counter: two uncontended
/// atomic additions on a cache line that other threads seldom touch, so readers on different
/// threads never contend. A writer, holding the component's lock, first unpublishes what it
/// drops, then moves the epoch on and waits until the previous epoch's counters are all zero:
/// every reader that could still see the old instance has then retained it or given up, and the
/// writer may release its own reference. Readers that start after the unpublishing see nothing
/// to read, and readers that start after the epoch moved count in the new epoch, so the writer
/// waits only for readers already under way, for a few nanoseconds each.
///
/// This is how Dirk returns cached singles without a lock and without weak references, whose
/// side tables would slow every retain and release of the user's instances.
@usableFromInline
final class ReadGuard: @unchecked Sendable {
    // `epoch` and the counters are atomics; `epoch` is written only while holding the lock of the
    // component that owns the guard.
    @usableFromInline let epoch = Atomic(0)
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>

    /// Counters per epoch; threads share one when their hashes collide, which costs only contention.
    @usableFromInline static let stripes = 8
    /// Atomics between two counters, so that each sits on its own cache line.
    @usableFromInline static let spacing = 128 / MemoryLayout<Atomic<Int>>.stride

    init() {
        let count = 2 * Self.stripes * Self.spacing
        counters = .allocate(capacity: count)
        for index in 0..<count {
            (counters + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        counters.deinitialize(count: 2 * Self.stripes * Self.spacing)
        counters.deallocate()
    }

    /// Runs `read` as a reader that a writer waits for. `read` must not block or call user code.
    @inlinable @inline(__always)
    func withReader<Result>(_ read: () -> Result) -> Result {
        let stripe = Self.stripe()
        while true {
            let current = epoch.load(ordering: .sequentiallyConsistent)
            let counter = counters + ((current & 1) &* Self.stripes &+ stripe) &* Self.spacing
            counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if epoch.load(ordering: .sequentiallyConsistent) == current {
                defer { counter.pointee.wrappingSubtract(1, ordering: .releasing) }
                return read()
            }
            // A writer moved the epoch on in between: count in the new one instead.
            counter.pointee.wrappingSubtract(1, ordering: .releasing)
        }
    }

    /// The calling thread's counter: threads' stacks lie far apart, so an address on the stack
    /// tells threads apart without a call. Within one thread it may vary; any choice is correct,
    /// since a reader decrements the counter it incremented.
    @inlinable @inline(__always)
    static func stripe() -> Int {
        var marker: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return Int(truncatingIfNeeded: (address >> 16) &* 0x9E37_79B9_7F4A_7C15 >> 61) & (stripes &- 1)
    }

    /// Waits until every reader that started before now has finished. Call it while holding the
    /// component's lock, after unpublishing what the readers must no longer find.
    func waitForReaders() {
        let previous = epoch.load(ordering: .relaxed)
        epoch.store(previous &+ 1, ordering: .sequentiallyConsistent)
        let first = counters + (previous & 1) * Self.stripes * Self.spacing
        for stripe in 0..<Self.stripes {
            while (first + stripe * Self.spacing).pointee.load(ordering: .sequentiallyConsistent) != 0 {
                sched_yield()
            }
        }
    }
}
