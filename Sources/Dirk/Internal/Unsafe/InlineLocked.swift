#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex and lock-free words that an object keeps in its own memory, as its first stored
/// property, followed at once by the state that the mutex guards, its second, so that the object
/// needs no allocation of its own for them; see `InlineLocked`, through which they are used.
@usableFromInline struct InlineLockedWords {
    /// The owner's lock-free words: 27, which `InlineLocked.layoutHolds(words:state:wordCount:)`
    /// checks are enough.
    @usableFromInline typealias Words = (
        UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt,
        UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt
    )

    /// The mutex, which the owner's initializer initializes (`InlineLocked.initialize()`) and its
    /// `deinit` destroys (`InlineLocked.destroy()`).
    @usableFromInline var mutex = pthread_mutex_t()
    /// Zero, as the owner starts them.
    @usableFromInline var words: Words = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    )

    init() {}

    /// Where a state of type `State`, the owner's next stored property, lies from the start of the
    /// words: after them, at the next offset that the state's alignment allows, as Swift lays out
    /// an object's stored properties. (On a platform with 4-byte words, a state that holds a
    /// `UInt64` starts 4 bytes past the words' end.)
    static func stateOffset<State>(of _: State.Type) -> Int {
        let alignment = MemoryLayout<State>.alignment
        return (MemoryLayout<Self>.size + alignment - 1) / alignment * alignment
    }

    /// How many words `words` holds.
    static var wordCapacity: Int { MemoryLayout<Words>.size / MemoryLayout<UInt>.size }
}

/// The lock, the lock-free words and the guarded state of an object that keeps them in its own
/// memory (`InlineLockedWords` and the state after them), found from the object's address.
///
/// **Why it is safe.** The owner is a root class whose first stored property is its
/// `InlineLockedWords`, which therefore lies where the standard library's
/// `_getUnsafePointerToStoredProperties` points, as `FirstStoredWord` explains for a word, and
/// whose second is the state. Swift lays out an object's stored properties in declaration order,
/// each at the next offset its alignment allows: the state lies at `stateOffset(of:)`. (Swift
/// documents that order for a struct's properties, not yet for a class's: the owner's initializer
/// checks it in every build, on every platform.)
/// `layoutHolds(words:state:wordCount:)` checks all of this against the properties themselves, and
/// a test calls it. The addresses are valid for as long as the owner's memory is allocated, which is
/// longer than the owner lives for a holder of an `unowned` reference to it:
/// - the words are plain integers, which the owner's deinitialization leaves as they are, so
///   anyone who keeps the memory allocated may read them and take the lock;
/// - the state is destroyed after the owner's `deinit`. An owner whose holders may outlive it sets
///   a flag among its words, while holding the lock, in its `deinit`; such holders reach the state
///   only through `withLockedState(unlessSet:_:)`, which gives it only while the flag is unset,
///   under the same lock. Everyone else holds the owner, and may use `withLock(_:)`.
@usableFromInline struct InlineLocked<State> {
    /// Where the owner's storage lies.
    @usableFromInline let storage: UnsafeMutableRawPointer

    /// The storage of `owner`, an object as described above.
    @inlinable init(of owner: AnyObject) {
        storage = _getUnsafePointerToStoredProperties(owner)
    }

    /// The mutex, first in the storage.
    @inlinable var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        storage.assumingMemoryBound(to: InlineLockedWords.self).pointer(to: \.mutex)!
    }

    /// The owner's lock-free words, after the mutex.
    @inlinable var extraWords: UnsafeMutablePointer<UInt> {
        UnsafeMutableRawPointer(storage.assumingMemoryBound(to: InlineLockedWords.self).pointer(to: \.words)!)
            .assumingMemoryBound(to: UInt.self)
    }

    /// Initializes the mutex: the owner's initializer calls it once.
    func initialize() { MutexOperations.initialize(mutex) }

    /// Destroys the mutex: the owner's `deinit` calls it last, when nobody can take it any more.
    func destroy() { MutexOperations.destroy(mutex) }

    /// The state the lock guards.
    private var state: UnsafeMutablePointer<State> {
        (storage + InlineLockedWords.stateOffset(of: State.self)).assumingMemoryBound(to: State.self)
    }

    /// Runs `body` with the state while holding the lock. Only a caller that holds the owner may
    /// call it.
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        let state = state
        return try MutexOperations.withLock(mutex) { () throws(Failure) -> Result in try body(&state.pointee)
        }
    }

    /// Whether `words` and `state`, the owner's first two stored properties, lie where this finds
    /// them, the state where `InlineLockedWords.stateOffset(of:)` says, with room for the lock and
    /// `wordCount` words of the owner's. A test hook.
    func layoutHolds(words: inout InlineLockedWords, state: inout State, wordCount: Int) -> Bool {
        let wordsAreFirst = withUnsafeMutablePointer(to: &words) { UnsafeMutableRawPointer($0) == storage }
        let stateIsNext = withUnsafeMutablePointer(to: &state) { UnsafeMutableRawPointer($0) == self.state }
        return wordsAreFirst && stateIsNext && wordCount <= InlineLockedWords.wordCapacity
    }
}
