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
/// each, do not need. Every build checks every other call's result and stops the program on a
/// failure; debug builds also check the lock's and unlock's, and make it an error-checking mutex, so
/// that a thread that takes a lock it holds stops at once instead of hanging.
@usableFromInline enum MutexOperations {
    /// Initializes the mutex at `mutex`, which must not move until `destroy(_:)`.
    @usableFromInline static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        #if DEBUG
        var attributes = pthread_mutexattr_t()
        precondition(pthread_mutexattr_init(&attributes) == 0, "Dirk: pthread_mutexattr_init failed")
        let typed = pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK))
        precondition(typed == 0, "Dirk: pthread_mutexattr_settype failed")
        let result = pthread_mutex_init(mutex, &attributes)
        precondition(pthread_mutexattr_destroy(&attributes) == 0, "Dirk: pthread_mutexattr_destroy failed")
        #else
        let result = pthread_mutex_init(mutex, nil)
        #endif
        precondition(result == 0, "Dirk: pthread_mutex_init failed with \(result)")
    }

    /// Destroys the mutex at `mutex`, which nobody holds.
    @usableFromInline static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_destroy(mutex)
        if result != 0 { failed("pthread_mutex_destroy", result) }
    }

    /// Runs `body` while holding the mutex at `mutex`. The lock's and unlock's results are checked in
    /// debug builds only: checked in every build, even through an out-of-line failure, they keep
    /// `withLock` from inlining into a cached read, which then costs 51 instructions more (293 → 344,
    /// callgrind, `single`), over its rail. A default mutex, which release builds use, initialized
    /// once and unlocked only by the thread that locked it, fails neither call: POSIX lists no error
    /// for it then.
    @inlinable @inline(__always) static func withLock<Result, Failure: Error>(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let locked = pthread_mutex_lock(mutex)
        assert(locked != EDEADLK, "Dirk internal error: a thread took a lock it already holds")
        assert(locked == 0, "Dirk internal error: pthread_mutex_lock failed with \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            assert(unlocked == 0, "Dirk internal error: pthread_mutex_unlock failed with \(unlocked)")
        }
        return try body()
    }

    /// Stops the program: the platform's `call` failed with `result`.
    static func failed(_ call: StaticString, _ result: Int32) -> Never {
        preconditionFailure("Dirk internal error: \(call) failed with \(result)")
    }
}

/// A value and the mutex that guards it, in one allocation, used only through `withLock`: the
/// shape of swift-nio's `NIOLockedValueBox`, and Dirk's one lock. Dirk holds a lock for a few loads
/// and stores at a time: never while user code runs (factories, `configure:` closures,
/// deinitializers, a key's `hash(into:)` or `==`) and never while waiting for anything.
///
/// The state is the buffer's header; the mutex takes the first elements, whose memory is bound to
/// `pthread_mutex_t` once, when the box is made, and which never move. A subclass may reserve words
/// after it (`extraWords`), zeroed, at a fixed address: a component's storage keeps its atomic words
/// and its directory there, a parker its condition.
@usableFromInline package class Locked<State>: ManagedBuffer<State, UInt> {
    /// How many words a `T` takes.
    @inlinable static func words<T>(for type: T.Type) -> Int {
        (MemoryLayout<T>.stride + MemoryLayout<UInt>.stride - 1) / MemoryLayout<UInt>.stride
    }

    /// How many elements the mutex takes.
    @inlinable static var mutexWords: Int { words(for: pthread_mutex_t.self) }

    /// A lock guarding `state`, with `extraWords` more words for the subclass, each zero.
    @inlinable package static func make(_ state: @autoclosure () -> State, extraWords: Int = 0) -> Self {
        let buffer = create(minimumCapacity: mutexWords + extraWords) { _ in state() }
        // `create` allocates an instance of the class it is called on, which is `Self`.
        let box = unsafeDowncast(buffer, to: self)
        box.withUnsafeMutablePointerToElements {
            ($0 + mutexWords).initialize(repeating: 0, count: extraWords)
            let mutex = UnsafeMutableRawPointer($0).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            MutexOperations.initialize(mutex)
        }
        return box
    }

    deinit { MutexOperations.destroy(mutex) }

    /// The mutex: the first elements, bound to `pthread_mutex_t` by `make(_:extraWords:)`, at a fixed
    /// address for the box's lifetime.
    final var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        withUnsafeMutablePointerToElements {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: pthread_mutex_t.self)
        }
    }

    /// The words that `make(_:extraWords:)` reserved, at a fixed address for the box's lifetime.
    @inlinable package final var extraWords: UnsafeMutablePointer<UInt> {
        withUnsafeMutablePointerToElements { $0 + Self.mutexWords }
    }

    /// Runs `body` with the state while holding the lock.
    @inlinable package final func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (state, elements) throws(Failure) -> Result in
            try MutexOperations.withLock(
                UnsafeMutableRawPointer(elements).assumingMemoryBound(to: pthread_mutex_t.self)
            ) { () throws(Failure) -> Result in try body(&state.pointee) }
        }
    }
}

/// Where one thread sleeps until another hands it something: the only place Dirk blocks a thread. A
/// `Locked` box of the message, with a condition in its extra words.
///
/// A thread parks only while it waits for an instance that another thread is building, or for the
/// configuration of one it took. The waker hands over what the sleeper needs (`deliver`), and the
/// sleeper takes it (`receive`), both under the box's mutex, which ThreadSanitizer sees.
@usableFromInline package final class Parker<Message>: Locked<Message?> {
    /// An empty parker.
    package static func make() -> Parker {
        let parker = make(nil, extraWords: words(for: pthread_cond_t.self))
        parker.condition.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(parker.condition, nil) == 0, "Dirk: pthread_cond_init failed")
        return parker
    }

    deinit {
        precondition(pthread_cond_destroy(condition) == 0, "Dirk internal error: pthread_cond_destroy failed")
    }

    private var condition: UnsafeMutablePointer<pthread_cond_t> {
        UnsafeMutableRawPointer(extraWords).assumingMemoryBound(to: pthread_cond_t.self)
    }

    /// Hands `message` to the thread that waits in `receive()`, waking it. Called once per wait.
    package func deliver(_ message: Message) {
        withLock { $0 = message }
        precondition(pthread_cond_signal(condition) == 0, "Dirk internal error: pthread_cond_signal failed")
    }

    /// Sleeps until a message is delivered, and returns it.
    package func receive() -> Message {
        withUnsafeMutablePointerToHeader { message in
            MutexOperations.withLock(mutex) {
                while message.pointee == nil {
                    let waited = pthread_cond_wait(condition, mutex)
                    if waited != 0 { MutexOperations.failed("pthread_cond_wait", waited) }
                }
                return message.pointee.take()!
            }
        }
    }
}

/// An object that synchronizes itself but cannot tell the compiler so, because it is a
/// `ManagedBuffer` (whose `Sendable` conformance is unavailable), wrapped for a `@Sendable` closure,
/// such as a task's cancellation handler. Wrap only `Locked` boxes, whose every mutable part the
/// lock guards, or values that refer only to such boxes.
struct SelfSynchronized<Object>: @unchecked Sendable { let object: Object }
