/// A lock, lock-free words and a state that the lock guards, kept by an object in its own memory as
/// its first stored property, so that the object needs no allocation of its own for them; see
/// `InlineLocked`, through which they are used.
@usableFromInline struct InlineLockedStorage<State> {
    /// The lock's words (`LockWords`), then the owner's lock-free words: 25 in all, which
    /// `InlineLocked.layoutHolds(in:wordCount:)` checks are enough.
    typealias Words = (
        UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt,
        UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt
    )

    /// Zero: the lock free (`LockWords`), and the owner's words as it starts them.
    var words: Words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Where `state` lies from the start of the storage: after the words, at the next offset that
    /// the state's alignment allows, as Swift lays out a struct's properties. (On a platform with
    /// 4-byte words, a state that holds a `UInt64` starts 4 bytes past the words' end.)
    static var stateOffset: Int {
        let alignment = MemoryLayout<State>.alignment
        return (MemoryLayout<Words>.size + alignment - 1) / alignment * alignment
    }

    /// How many words `words` holds.
    static var wordCapacity: Int { MemoryLayout<Words>.size / MemoryLayout<UInt>.size }
}

/// The lock, the lock-free words and the guarded state of an object that keeps them in its own
/// memory (`InlineLockedStorage`), found from the object's address.
///
/// **Why it is safe.** The owner is a root class whose first stored property is its
/// `InlineLockedStorage`, which therefore lies where the standard library's
/// `_getUnsafePointerToStoredProperties` points, as `FirstStoredWord` explains for a word. The
/// storage is a struct, which Swift lays out in declaration order: the words first, the state at
/// the next offset its alignment allows (`stateOffset`). The owner's initializer checks this in
/// debug builds, on every platform.
/// `layoutHolds(in:wordCount:)` checks all of this against the properties themselves, and a test
/// calls it. The addresses are valid for as long as the owner's memory is allocated, which is
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

    /// The lock's words (`LockWords`), first in the storage.
    @inlinable var lockWords: UnsafeMutablePointer<UInt> { storage.assumingMemoryBound(to: UInt.self) }

    /// The owner's lock-free words, after the lock's.
    @inlinable var extraWords: UnsafeMutablePointer<UInt> { lockWords + LockWords.count }

    /// The state the lock guards.
    private var state: UnsafeMutablePointer<State> {
        (storage + InlineLockedStorage<State>.stateOffset).assumingMemoryBound(to: State.self)
    }

    /// Runs `body` with the state while holding the lock. Only a caller that holds the owner may
    /// call it.
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        let state = state
        return try LockWords.withLock(lockWords) { () throws(Failure) -> Result in try body(&state.pointee) }
    }

    /// Runs `body` while holding the lock, with access to the state for as long as `flag`, one of
    /// the owner's words that its `deinit` sets while holding the lock, is unset: what a holder
    /// that may outlive the owner calls.
    func withLockedState<Result>(unlessSet flag: AtomicFlag, _ body: (LockedState<State>) -> Result) -> Result
    {
        let locked = LockedState(state: state, flag: flag)
        return LockWords.withLock(lockWords) { body(locked) }
    }

    /// Whether `storage`, the owner's stored property, lies where this finds it, with its words
    /// first, its state where `InlineLockedStorage.stateOffset` says, and room for the lock and
    /// `wordCount` words of the owner's. A test hook.
    func layoutHolds(in storage: inout InlineLockedStorage<State>, wordCount: Int) -> Bool {
        let isFirst = withUnsafeMutablePointer(to: &storage) { UnsafeMutableRawPointer($0) == self.storage }
        return isFirst && MemoryLayout<InlineLockedStorage<State>>.offset(of: \.words) == 0
            && MemoryLayout<InlineLockedStorage<State>>.offset(of: \.state)
                == InlineLockedStorage<State>.stateOffset
            && LockWords.count + wordCount <= InlineLockedStorage<State>.wordCapacity
    }
}

/// An owner's state, as a holder of its lock that may outlive the owner reaches it: only while the
/// owner's flag is unset, before which the state exists.
struct LockedState<State> {
    fileprivate let state: UnsafeMutablePointer<State>
    fileprivate let flag: AtomicFlag

    /// What `body` returns for the state, or nil if the flag is set.
    func ifUnset<Result>(_ body: (inout State) -> Result) -> Result? {
        flag.isSet ? nil : body(&state.pointee)
    }
}
