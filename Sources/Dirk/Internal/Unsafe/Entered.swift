/// A component's gate, which every call that may build in the component passes through: one word,
/// twice the calls in, plus one once shutdown has begun. Shutdown closes it, then waits for the last
/// call in to leave.
@usableFromInline struct Gate {
    @usableFromInline let word: AtomicWord

    @inlinable init(_ word: AtomicWord) { self.word = word }

    /// Counts a call in; returns whether the gate is open: false once shutdown has begun, when the
    /// caller either keeps the call in or leaves at once.
    func enter() -> Bool { word.add(2) & 1 == 0 }

    /// Counts a call out; returns whether it was the last out of a gate that shutdown closed, whose
    /// shutdown it resumes then (a rare path).
    func leave() -> Bool { word.add(-2) == 3 }

    /// Refuses every call that comes from now on: shutdown has begun.
    func close() { word.set(1) }

    var isClosed: Bool { word.relaxed & 1 != 0 }
    var isEmpty: Bool { word.acquired >> 1 == 0 }
}

/// What a resolution counts itself in and out of when it enters a component: the component's storage,
/// which the component keeps alive.
@usableFromInline protocol EnteredComponent: AnyObject {
    /// Counts a call out of the component's gate; the last call out of a gate that shutdown closed
    /// resumes the shutdown, which waits for it.
    func leaveGate()

    /// Whether the component's shutdown has begun.
    var isShuttingDown: Bool { get }
}

/// The components that one part of a resolution entered, each counted in its gate, with the one
/// strong reference the resolution holds to each: the owner of those references and gate counts,
/// which alone gives them back (`leaveAll()`), or hands them to another owner (`transfer(to:where:)`).
///
/// A class, so that no copy of it exists: an entry (`Entered`) is a view of one component that owns
/// nothing, and no code outside this file can give back what an entry stands for.
@usableFromInline final class EnteredComponents {
    /// The entries, in the order they were entered. One agent at a time reaches them (a thread's
    /// context from its thread, a task's agent under its lock), so a run-time exclusivity check, a
    /// call into the runtime on every access, could never fail: they go without one.
    @usableFromInline @exclusivity(unchecked) private(set) var entries: [Entered] = []

    @usableFromInline init() {}

    deinit { precondition(entries.isEmpty, "Dirk internal error: entered components never left") }

    /// The entry of the component whose identity is `identity`, if it was entered.
    @inlinable @inline(__always) func entry(of identity: UInt) -> Entered? {
        var index = 0
        while index < entries.count {
            if entries[index].identity == identity { return entries[index] }
            index &+= 1
        }
        return nil
    }

    /// Records that `component`, whose storage is `storage`, was admitted through its gate: takes a
    /// strong reference to it, which the owner gives back when it leaves.
    @inlinable @inline(__always) func enter(_ component: AnyObject, storage: any EnteredComponent) -> Entered
    {
        let entry = Entered(reference: Unmanaged.passRetained(component), storage: storage)
        entries.append(entry)
        return entry
    }

    /// Leaves every component, newest first, one at a time, each after its gate: a component's
    /// release may run user code that resolves again on this thread, and enters again, so each
    /// entry goes out of the list before it leaves.
    func leaveAll() {
        while let entry = entries.popLast() { entry.leave() }
    }

    /// Hands `other` the entries that `keep` accepts, with their references and gate counts, in
    /// order; the others stay.
    func transfer(to other: EnteredComponents, where keep: (Entered) -> Bool) {
        var staying: [Entered] = []
        for entry in entries {
            if keep(entry) { other.entries.append(entry) } else { staying.append(entry) }
        }
        entries = staying
    }
}

/// A component that a resolution entered, counted in the component's gate, and lent to the
/// resolution's steps: a view, which owns nothing (see `EnteredComponents`).
///
/// **Why it is safe.** The resolution's `EnteredComponents` owns one strong reference to the
/// component, taken when it entered, which it gives back when the resolution ends, after leaving
/// the gate, which that reference keeps allocated, and after every step that uses the component has
/// returned. Until then, the steps use the component without references of their own
/// (`withObject`, which does not let it escape): every provider call counts two atomic operations
/// fewer, and every resolution two more (see Architecture).
@usableFromInline struct Entered {
    @usableFromInline let reference: Unmanaged<AnyObject>
    /// The component's storage, which `reference` keeps alive.
    @usableFromInline unowned(unsafe) let storage: any EnteredComponent

    @inlinable init(reference: Unmanaged<AnyObject>, storage: any EnteredComponent) {
        self.reference = reference
        self.storage = storage
    }

    /// The component's identity: its address.
    @inlinable var identity: UInt { UInt(bitPattern: reference.toOpaque()) }

    /// The component, as a strong reference of the caller's own.
    @inlinable var object: AnyObject { reference.takeUnretainedValue() }

    /// Runs `body` with the component, which it uses without a reference count of its own.
    @inlinable @inline(__always)
    func withObject<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// Leaves the gate and gives back the reference: only the owner does, once.
    fileprivate func leave() {
        storage.leaveGate()
        reference.release()
    }
}
