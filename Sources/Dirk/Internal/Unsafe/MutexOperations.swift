#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every call Dirk makes to the platform's mutex, in one place, as swift-nio's `LockOperations`.
///
/// Dirk uses `pthread_mutex_t` on every platform, Apple's included, so that the lock that ships is
/// the lock CI tests. The platform's mutex records its owner, so a waiter of higher priority lends
/// it its priority, and it puts a waiter to sleep rather than spin. Debug builds make it an
/// error-checking mutex and check every result: a thread that takes a lock it holds stops at once
/// instead of hanging.
///
/// A mutex must not move once it is initialized: each lives in a class's memory (`Locked`, or a
/// component's stored properties, see `InlineLocked`), which never moves.
@usableFromInline enum MutexOperations {
    /// Initializes the mutex at `mutex`, which must not move until `destroy(_:)`.
    @usableFromInline static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        #if DEBUG
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK))
            let result = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        #else
            let result = pthread_mutex_init(mutex, nil)
        #endif
        precondition(result == 0, "Dirk: pthread_mutex_init failed with \(result)")
    }

    /// Destroys the mutex at `mutex`, which nobody holds.
    @usableFromInline static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_destroy(mutex)
        assert(result == 0, "Dirk internal error: pthread_mutex_destroy failed with \(result)")
    }

    /// Takes the mutex, waiting while another thread holds it.
    @inlinable @inline(__always)
    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_lock(mutex)
        assert(result != EDEADLK, "Dirk internal error: a thread took a lock it already holds")
        assert(result == 0, "Dirk internal error: pthread_mutex_lock failed with \(result)")
    }

    /// Gives back the mutex, which this thread holds.
    @inlinable @inline(__always)
    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_unlock(mutex)
        assert(result == 0, "Dirk internal error: pthread_mutex_unlock failed with \(result)")
    }

    /// Runs `body` while holding the mutex at `mutex`.
    @inlinable @inline(__always)
    static func withLock<Result, Failure: Error>(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock(mutex)
        defer { unlock(mutex) }
        return try body()
    }
}

/// A value and the mutex that guards it, in one allocation, used only through `withLock`: the
/// shape of swift-nio's `NIOLockedValueBox`. Dirk holds a lock for a few loads and stores at a
/// time: never while user code runs (factories, `configure:` closures, deinitializers, a key's
/// `hash(into:)` or `==`) and never while waiting for anything.
///
/// The state is the buffer's header; the mutex takes the first elements, whose memory is bound to
/// `pthread_mutex_t` once, when the box is made, and which never move. Subclasses may reserve
/// words after it (`extraWords`), which they touch only through CDirk's atomic functions. (The
/// header is the state itself, not a generic pair of mutex and state, so that a box of a concrete
/// state is destroyed by code compiled for that state.)
@usableFromInline package class Locked<State>: ManagedBuffer<State, UInt> {
    // The header is read and written only inside `withLock`; the mutex only through
    // `MutexOperations`.

    /// How many elements the mutex takes.
    @inlinable static var mutexWords: Int {
        (MemoryLayout<pthread_mutex_t>.stride + MemoryLayout<UInt>.stride - 1) / MemoryLayout<UInt>.stride
    }

    /// A lock guarding `state`, with `extraWords` more words for the subclass.
    @inlinable package static func make(_ state: @autoclosure () -> State, extraWords: Int = 0) -> Self {
        let buffer = create(minimumCapacity: mutexWords + extraWords) { _ in state() }
        // `create` allocates an instance of the class it is called on, which is `Self`.
        let box = unsafeDowncast(buffer, to: self)
        box.withUnsafeMutablePointerToElements {
            let mutex = UnsafeMutableRawPointer($0).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            MutexOperations.initialize(mutex)
        }
        return box
    }

    deinit {
        MutexOperations.destroy(mutex)
    }

    /// The mutex, in the first elements.
    @inlinable final var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        withUnsafeMutablePointerToElements {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: pthread_mutex_t.self)
        }
    }

    /// The words that `make(_:extraWords:)` reserved, at a fixed address for the box's lifetime.
    @inlinable package final var extraWords: UnsafeMutablePointer<UInt> {
        withUnsafeMutablePointerToElements { $0 + Self.mutexWords }
    }

    /// Runs `body` with the state while holding the lock.
    @inlinable
    package final func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, elements) throws(Failure) -> Result in
            try MutexOperations.withLock(
                UnsafeMutableRawPointer(elements).assumingMemoryBound(to: pthread_mutex_t.self)
            ) {
                () throws(Failure) -> Result in try body(&state.pointee)
            }
        }
    }
}
