#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every call Dirk makes to the platform's mutex, in one place, as swift-nio's `LockOperations`;
/// `Parker`, below, makes the condition's.
///
/// Dirk uses `pthread_mutex_t` on every platform, Apple's included, so that the lock that ships is
/// the lock CI tests. It puts a waiter to sleep rather than spin; it promises no priority
/// inheritance (glibc's default mutex gives none), which Dirk's sections, a few loads and stores
/// each, do not need. Every build checks every call's result and stops the program on a failure;
/// debug builds make it an error-checking mutex, so that a thread that takes a lock it holds stops
/// at once instead of hanging.
@usableFromInline enum MutexOperations {
    /// Initializes the mutex at `mutex`, which must not move until `destroy(_:)`.
    @usableFromInline static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        #if DEBUG
        var attributes = pthread_mutexattr_t()
        check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        check(
            pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK)),
            "pthread_mutexattr_settype")
        check(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
        check(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy")
        #else
        check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
        #endif
    }

    /// Destroys the mutex at `mutex`, which nobody holds.
    @usableFromInline static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
    }

    /// Runs `body` while holding the mutex at `mutex`. Every build checks the lock's and unlock's
    /// results: a release build in one comparison each, which stops the program without a message,
    /// a debug build with the message.
    @inlinable @inline(__always) static func withLock<Result, Failure: Error>(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let locked = pthread_mutex_lock(mutex)
        precondition(
            locked == 0,
            locked == EDEADLK
                ? "Dirk internal error: a thread took a lock it already holds"
                : "Dirk internal error: pthread_mutex_lock failed with \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "Dirk internal error: pthread_mutex_unlock failed with \(unlocked)")
        }
        return try body()
    }

    /// Stops the program if the platform's `call` failed: if its `result` is not zero.
    @inline(__always) static func check(_ result: Int32, _ call: StaticString) {
        if result != 0 { preconditionFailure("Dirk internal error: \(call) failed with \(result)") }
    }
}

/// A value and the mutex that guards it, in one allocation: the storage of a `Locked` box, as
/// swift-nio's `LockStorage` is of `NIOLockedValueBox`. Final: a type that needs a lock holds a box.
///
/// **Why it is safe.** The state is the buffer's header; the mutex takes the first elements, whose
/// memory is bound to `pthread_mutex_t` once, when the buffer is made, and which never move while
/// the buffer lives. The state is reached only in `withLock`, while the mutex is held, and in
/// `withUnsharedState`, before any other thread can reach the buffer. The words
/// after the mutex, zeroed when `Locked.make(_:extraWords:)` makes the buffer, are reached only in
/// `withExtraWords`, whose caller accesses them atomically or keeps something of its own there (a
/// parker its condition). No pointer to either outlives the closure it is given to.
@usableFromInline package final class LockBuffer<State>: ManagedBuffer<State, UInt> {
    /// How many words a `T` takes.
    @inlinable static func words<T>(for type: T.Type) -> Int {
        (MemoryLayout<T>.stride + MemoryLayout<UInt>.stride - 1) / MemoryLayout<UInt>.stride
    }

    /// How many elements the mutex takes.
    @inlinable static var mutexWords: Int { words(for: pthread_mutex_t.self) }

    /// The memory at `words`, bound to `T` when the box was made: the mutex at the buffer's
    /// elements, a parker's condition at its extra words.
    @inlinable static func bound<T>(_ words: UnsafeMutablePointer<UInt>, to type: T.Type)
        -> UnsafeMutablePointer<T>
    {
        UnsafeMutableRawPointer(words).assumingMemoryBound(to: T.self)
    }

    deinit {
        withUnsafeMutablePointerToElements {
            MutexOperations.destroy(Self.bound($0, to: pthread_mutex_t.self))
        }
    }

    /// Runs `body` with the state while holding the lock.
    @inlinable @inline(__always) package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, elements) throws(Failure) -> Result in
            try MutexOperations.withLock(Self.bound(elements, to: pthread_mutex_t.self)) {
                () throws(Failure) -> Result in
                try body(&state.pointee)
            }
        }
    }

    /// Runs `body` with the state without the lock: only for the buffer's maker, before any other
    /// thread can reach the buffer (a component binding its storage), when the lock could not order
    /// anything.
    func withUnsharedState<Result>(_ body: (inout State) -> Result) -> Result {
        withUnsafeMutablePointerToHeader { body(&$0.pointee) }
    }

    /// Runs `body` with the words that the box reserved after its mutex, without the lock.
    @inlinable @inline(__always)
    package func withExtraWords<Result>(_ body: (UnsafeMutablePointer<UInt>) -> Result) -> Result {
        withUnsafeMutablePointerToElements { body($0 + Self.mutexWords) }
    }
}

/// A value that only its lock's holder reaches: the shape of swift-nio's `NIOLockedValueBox`, and
/// Dirk's one lock. Dirk holds a lock for a few loads and stores at a time: never while user code
/// runs (factories, `configure:` closures, deinitializers, a key's `hash(into:)` or `==`) and never
/// while waiting for anything.
///
/// `Sendable` whatever its state, where `NIOLockedValueBox` asks its value to be: the state is
/// reached only under the lock, and what Dirk moves into or out of a box is its own synchronized
/// objects and the instances its API requires to be `Sendable`.
@usableFromInline package struct Locked<State>: @unchecked Sendable {
    /// The value, the mutex and the extra words, in one allocation.
    @usableFromInline package let buffer: LockBuffer<State>

    /// The box of `buffer`, for a value that must be `Sendable`: the same lock and state.
    @inlinable package init(buffer: LockBuffer<State>) { self.buffer = buffer }

    /// A lock guarding `state`, with `extraWords` more words, each zero, for its owner.
    @inlinable package static func make(_ state: @autoclosure () -> State, extraWords: Int = 0) -> Self {
        let made = LockBuffer<State>.create(minimumCapacity: LockBuffer<State>.mutexWords + extraWords) { _ in
            state()
        }
        // `create` allocates an instance of the class it is called on.
        let buffer = unsafeDowncast(made, to: LockBuffer<State>.self)
        buffer.withUnsafeMutablePointerToElements {
            ($0 + LockBuffer<State>.mutexWords).initialize(repeating: 0, count: extraWords)
            let mutex = UnsafeMutableRawPointer($0).initializeMemory(as: pthread_mutex_t.self, to: .init())
            MutexOperations.initialize(mutex)
        }
        return Self(buffer: buffer)
    }

    /// Runs `body` with the state while holding the lock.
    @inlinable @inline(__always) package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try buffer.withLock(body)
    }
}

/// Where one thread sleeps until another hands it something: the only place Dirk blocks a thread. A
/// `Locked` box of the message, with a condition in its extra words.
///
/// A thread parks only while it waits for an instance that another thread is building, or for the
/// configuration of one it took. The waker hands over what the sleeper needs (`deliver`), and the
/// sleeper takes it (`receive`), both under the box's mutex, which ThreadSanitizer sees.
@usableFromInline package final class Parker<Message>: Sendable {
    private let box: Locked<Message?> = .make(
        nil, extraWords: LockBuffer<Message?>.words(for: pthread_cond_t.self))

    /// An empty parker.
    package init() {
        box.buffer.withExtraWords {
            let condition = UnsafeMutableRawPointer($0).initializeMemory(as: pthread_cond_t.self, to: .init())
            MutexOperations.check(pthread_cond_init(condition, nil), "pthread_cond_init")
        }
    }

    deinit { MutexOperations.check(withCondition { pthread_cond_destroy($0) }, "pthread_cond_destroy") }

    /// Runs `body` with the condition, which `init()` bound in the box's extra words.
    private func withCondition<Result>(_ body: (UnsafeMutablePointer<pthread_cond_t>) -> Result) -> Result {
        box.buffer.withExtraWords { body(LockBuffer<Message?>.bound($0, to: pthread_cond_t.self)) }
    }

    /// Hands `message` to the thread that waits in `receive()`, waking it. Called once per wait.
    package func deliver(_ message: Message) {
        box.withLock { $0 = message }
        MutexOperations.check(withCondition { pthread_cond_signal($0) }, "pthread_cond_signal")
    }

    /// Sleeps until a message is delivered, and returns it.
    package func receive() -> Message {
        box.buffer.withUnsafeMutablePointers { message, elements in
            let mutex = LockBuffer<Message?>.bound(elements, to: pthread_mutex_t.self)
            let condition = LockBuffer<Message?>.bound(
                elements + LockBuffer<Message?>.mutexWords, to: pthread_cond_t.self)
            return MutexOperations.withLock(mutex) {
                while message.pointee == nil {
                    MutexOperations.check(pthread_cond_wait(condition, mutex), "pthread_cond_wait")
                }
                return message.pointee.take()!
            }
        }
    }
}
