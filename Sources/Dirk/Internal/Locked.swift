#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a mutex, in one allocation, used only through `withLock`.
///
/// Dirk uses pthread mutexes rather than `Synchronization.Mutex` because ThreadSanitizer sees
/// every pthread lock, so the sanitizer checks Dirk's own synchronization too. Dirk holds these
/// locks for a few loads and stores at a time, never while user code runs.
final class Locked<State>: ManagedBuffer<State, pthread_mutex_t> {
    // The header (`State`) is read and written only inside `withLock`; the mutex lives in the
    // buffer's single element, whose address never moves.

    /// A box holding `state`.
    static func make(_ state: State) -> Locked<State> {
        let buffer = create(minimumCapacity: 1) { _ in state }
        let box = unsafeDowncast(buffer, to: Locked<State>.self)
        box.withUnsafeMutablePointerToElements { mutex in
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            #if DEBUG
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
            #endif
            let created = pthread_mutex_init(mutex, &attributes)
            precondition(created == 0, "Dirk: could not create a mutex (\(created))")
            pthread_mutexattr_destroy(&attributes)
        }
        return box
    }

    deinit {
        withUnsafeMutablePointers { _, mutex in
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
}
