#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a mutex, with a condition to wait on, in one allocation; used only through
/// `withLock`.
///
/// Dirk uses pthread mutexes rather than `Synchronization.Mutex` because ThreadSanitizer sees
/// every pthread lock, so the sanitizer checks Dirk's own synchronization too. Dirk holds these
/// locks for a few loads and stores at a time, never while user code runs.
final class Locked<State>: ManagedBuffer<State, Locked<State>.Primitives> {
    // The header (`State`) is read and written only inside `withLock`; the mutex and condition
    // live in the buffer's single element, whose address never moves.

    /// The pthread objects.
    struct Primitives {
        var mutex = pthread_mutex_t()
        var condition = pthread_cond_t()
    }

    /// A box holding `state`, which is built in place.
    static func make(_ state: @autoclosure () -> State) -> Locked<State> {
        let buffer = create(minimumCapacity: 1) { _ in state() }
        let box = unsafeDowncast(buffer, to: Locked<State>.self)
        box.withUnsafeMutablePointerToElements { primitives in
            primitives.initialize(to: Primitives())
            #if DEBUG
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
                let created = pthread_mutex_init(primitives.pointer(to: \.mutex)!, &attributes)
                pthread_mutexattr_destroy(&attributes)
            #else
                let created = pthread_mutex_init(primitives.pointer(to: \.mutex)!, nil)
            #endif
            precondition(created == 0, "Dirk: could not create a mutex (\(created))")
            let condition = pthread_cond_init(primitives.pointer(to: \.condition)!, nil)
            precondition(condition == 0, "Dirk: could not create a condition (\(condition))")
        }
        return box
    }

    deinit {
        withUnsafeMutablePointerToElements { primitives in
            _ = pthread_cond_destroy(primitives.pointer(to: \.condition)!)
            _ = pthread_mutex_destroy(primitives.pointer(to: \.mutex)!)
        }
    }

    /// Runs `body` with the state while holding the mutex.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, primitives) throws(Failure) -> Result in
            let mutex = primitives.pointer(to: \.mutex)!
            let locked = pthread_mutex_lock(mutex)
            assert(locked == 0, "Dirk: pthread_mutex_lock failed (\(locked))")
            defer {
                let unlocked = pthread_mutex_unlock(mutex)
                assert(unlocked == 0, "Dirk: pthread_mutex_unlock failed (\(unlocked))")
            }
            return try body(&state.pointee)
        }
    }

    /// Sleeps until `broadcast()` or until `nanoseconds` have passed. Call it inside `withLock`.
    func wait(nanoseconds: Int) {
        withUnsafeMutablePointerToElements { primitives in
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let total = Int(now.tv_nsec) + nanoseconds
            var deadline = timespec()
            deadline.tv_sec = now.tv_sec + total / 1_000_000_000
            deadline.tv_nsec = .init(total % 1_000_000_000)
            let waited = pthread_cond_timedwait(
                primitives.pointer(to: \.condition)!, primitives.pointer(to: \.mutex)!, &deadline)
            assert(waited == 0 || waited == ETIMEDOUT, "Dirk: pthread_cond_timedwait failed (\(waited))")
        }
    }

    /// Wakes every thread waiting in `wait(nanoseconds:)`. Call it inside `withLock`.
    func broadcast() {
        withUnsafeMutablePointerToElements { primitives in
            _ = pthread_cond_broadcast(primitives.pointer(to: \.condition)!)
        }
    }
}
