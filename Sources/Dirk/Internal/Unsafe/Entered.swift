/// What a resolution counts itself in and out of when it enters a component: the component's storage,
/// which the component keeps alive.
@usableFromInline protocol EnteredComponent: AnyObject {
    /// The component's gate: twice the calls in, plus one once shutdown has begun, in a word at a
    /// fixed address for as long as the component lives.
    var gate: AtomicWord { get }

    /// Resumes the component's shutdown, which waits for the last call in the gate to leave.
    func lastCallLeft()
}

/// A component that a resolution entered, counted in the component's gate.
///
/// **Why it is safe.** The resolution owns one strong reference to the component, taken when it
/// entered (`object`), which it gives back when it ends, after leaving the gate, whose word that
/// reference keeps allocated. Until then, the resolution's steps use the component without
/// references of their own (`lent`, a `LentObject`): every provider call counts two atomic
/// operations fewer, and every resolution two more (see Architecture).
@usableFromInline struct Entered {
    @usableFromInline let object: Unmanaged<AnyObject>
    /// The component's gate.
    @usableFromInline let gate: AtomicWord
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
        gate = storage.gate
    }

    /// Leaves the gate and gives back the reference.
    func leave() {
        // The last call out of a component whose shutdown has begun resumes it: a rare path.
        if gate.add(-2) == 3 { storage.lastCallLeft() }
        object.release()
    }
}
