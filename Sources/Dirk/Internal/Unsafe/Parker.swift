#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where one thread sleeps until another hands it something: the only place Dirk blocks a thread.
///
/// A thread parks only while it waits for an instance that another thread is building. The waker
/// hands over what the sleeper needs (`deliver`), and the sleeper takes it (`receive`); both hold
/// the parker's mutex, which is a pthread mutex so that ThreadSanitizer sees the hand-over.
@usableFromInline package final class Parker<Message>: @unchecked Sendable {
    // `message` is guarded by `mutex`; the two pointers are immutable.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var message: Message?

    @usableFromInline package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let createdMutex = pthread_mutex_init(mutex, nil)
        let createdCondition = pthread_cond_init(condition, nil)
        precondition(
            createdMutex == 0 && createdCondition == 0,
            "Dirk: could not create a mutex and condition (\(createdMutex), \(createdCondition))")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Hands `message` to the thread that waits in `receive()`, waking it. Called once per wait.
    package func deliver(_ message: Message) {
        pthread_mutex_lock(mutex)
        self.message = message
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until a message is delivered, and returns it.
    @usableFromInline package func receive() -> Message {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let message {
                self.message = nil
                return message
            }
            pthread_cond_wait(condition, mutex)
        }
    }
}
