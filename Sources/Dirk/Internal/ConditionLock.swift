#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex paired with a condition variable, used only through `withLock`.
///
/// Dirk holds it for a few loads and stores at a time, never while user code runs. Threads that
/// wait for an instance another thread is building sleep on the condition and are woken by
/// `broadcast()`.
final class ConditionLock: @unchecked Sendable {
    // The pthread objects live in their own allocations so that their addresses never move;
    // they are touched only through the pthread functions, which synchronize themselves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        precondition(pthread_mutex_init(mutex, &attributes) == 0, "Dirk: could not create a mutex")
        pthread_mutexattr_destroy(&attributes)
        precondition(pthread_cond_init(condition, nil) == 0, "Dirk: could not create a condition")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` while holding the mutex.
    func withLock<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let locked = pthread_mutex_lock(mutex)
        assert(locked == 0, "Dirk: pthread_mutex_lock failed with \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            assert(unlocked == 0, "Dirk: pthread_mutex_unlock failed with \(unlocked)")
        }
        return try body()
    }

    /// Sleeps until `broadcast()` or until `nanoseconds` have passed. Call it inside `withLock`.
    func wait(nanoseconds: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Int(now.tv_nsec) + nanoseconds
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + total / 1_000_000_000
        deadline.tv_nsec = .init(total % 1_000_000_000)
        let waited = pthread_cond_timedwait(condition, mutex, &deadline)
        assert(waited == 0 || waited == ETIMEDOUT, "Dirk: pthread_cond_timedwait failed with \(waited)")
    }

    /// Wakes every thread waiting in `wait(nanoseconds:)`.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
