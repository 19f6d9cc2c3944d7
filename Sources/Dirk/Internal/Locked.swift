#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a mutex, in one allocation; used only through `withLock`.
///
/// Dirk uses pthread mutexes rather than `Synchronization.Mutex` because ThreadSanitizer sees
/// every pthread lock, so the sanitizer checks Dirk's own synchronization too. Dirk holds these
/// locks for a few loads and stores at a time, never while user code runs. Threads that wait while
/// holding one sleep on a separate `Condition`, made only where something waits.
final class Locked<State>: ManagedBuffer<State, pthread_mutex_t> {
    // The header (`State`) is read and written only inside `withLock`; the mutex lives in the
    // buffer's single element, whose address never moves.

    /// A box holding `state`, which is built in place.
    static func make(_ state: @autoclosure () -> State) -> Locked<State> {
        let buffer = create(minimumCapacity: 1) { _ in state() }
        let box = unsafeDowncast(buffer, to: Locked<State>.self)
        box.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            #if DEBUG
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
                let created = pthread_mutex_init(mutex, &attributes)
                pthread_mutexattr_destroy(&attributes)
            #else
                let created = pthread_mutex_init(mutex, nil)
            #endif
            precondition(created == 0, "Dirk: could not create a mutex (\(created))")
        }
        return box
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            _ = pthread_mutex_destroy(mutex)
        }
    }

    /// Runs `body` with the state while holding the mutex.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, mutex) throws(Failure) -> Result in
            let locked = pthread_mutex_lock(mutex)
            assert(locked == 0, "Dirk: pthread_mutex_lock failed (\(locked))")
            defer {
                let unlocked = pthread_mutex_unlock(mutex)
                assert(unlocked == 0, "Dirk: pthread_mutex_unlock failed (\(unlocked))")
            }
            return try body(&state.pointee)
        }
    }

    /// Sleeps on `condition` until it is broadcast or until `nanoseconds` have passed, releasing
    /// the mutex meanwhile. Call it inside `withLock`.
    func wait(on condition: Condition, nanoseconds: Int) {
        withUnsafeMutablePointerToElements { mutex in
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let total = Int(now.tv_nsec) + nanoseconds
            var deadline = timespec()
            deadline.tv_sec = now.tv_sec + total / 1_000_000_000
            deadline.tv_nsec = .init(total % 1_000_000_000)
            let waited = pthread_cond_timedwait(condition.pointer, mutex, &deadline)
            assert(waited == 0 || waited == ETIMEDOUT, "Dirk: pthread_cond_timedwait failed (\(waited))")
        }
    }
}

/// A pthread condition on which threads sleep while holding a `Locked`'s mutex.
final class Condition: @unchecked Sendable {
    // The condition synchronizes itself; the pointer is immutable.
    fileprivate let pointer: UnsafeMutablePointer<pthread_cond_t>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: pthread_cond_t())
        let created = pthread_cond_init(pointer, nil)
        precondition(created == 0, "Dirk: could not create a condition (\(created))")
    }

    deinit {
        _ = pthread_cond_destroy(pointer)
        pointer.deallocate()
    }

    /// Wakes every thread waiting on the condition. Call it while holding the mutex they wait with.
    func broadcast() {
        _ = pthread_cond_broadcast(pointer)
    }
}
