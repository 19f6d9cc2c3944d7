/// A component's gate, which every call that may build in the component passes through: one word,
/// twice the calls in, plus one once shutdown has begun. Shutdown closes it, then waits for the last
/// call in to leave.
@usableFromInline struct Gate {
    @usableFromInline let word: AtomicWord

    @inlinable init(_ word: AtomicWord) {
        self.word = word
    }

    /// Counts a call in; returns whether the gate is open: false once shutdown has begun, when the
    /// caller either keeps the call in or leaves at once.
    func enter() -> Bool { word.add(2) & 1 == 0 }

    /// Counts a call out; returns whether it was the last call in a gate that shutdown closed, whose
    /// shutdown the caller then resumes.
    func leave() -> Bool { word.add(-2) == 3 }

    /// Refuses every call that comes from now on: shutdown has begun.
    func close() { word.set(1) }

    var isClosed: Bool { word.relaxed & 1 != 0 }
    var isEmpty: Bool { word.acquired >> 1 == 0 }
}

/// What a resolution counts itself in and out of when it enters a component: the component's storage,
/// which the component keeps alive.
@usableFromInline protocol EnteredComponent: AnyObject {
    var gate: Gate { get }

    /// Counts a call out of the gate; the last one out of a component whose shutdown has begun
    /// resumes the shutdown.
    func leaveGate()
}

/// A component that a resolution entered, counted in the component's gate.
///
/// **Why it is safe.** The resolution owns one strong reference to the component, taken when it
/// entered (`object`), which it gives back when it ends, after leaving the gate, which that reference
/// keeps allocated. Until then, the resolution's steps use the component without references of their
/// own (`lent`, a `LentObject`): every provider call counts two atomic operations fewer, and every
/// resolution two more (see Architecture).
@usableFromInline struct Entered {
    @usableFromInline let object: Unmanaged<AnyObject>
    /// The component's storage, which `object` keeps alive.
    @usableFromInline unowned(unsafe) let storage: any EnteredComponent

    /// The component's identity: its address.
    @inlinable var identity: UInt { UInt(bitPattern: object.toOpaque()) }

    /// The component, lent to the resolution's steps.
    @inlinable var lent: LentObject { LentObject(object) }

    /// Takes over a strong reference to `component`, of which `storage` is the storage.
    @inlinable init(_ component: AnyObject, storage: any EnteredComponent) {
        object = Unmanaged.passRetained(component)
        self.storage = storage
    }

    /// Leaves the gate and gives back the reference.
    func leave() {
        storage.leaveGate()
        object.release()
    }
}
