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

/// A component that a resolution entered, counted in the component's gate, and lent to the
/// resolution's steps.
///
/// **Why it is safe.** The resolution owns one strong reference to the component, taken when it
/// entered (`reference`), which it gives back when it ends, after leaving the gate, which that
/// reference keeps allocated, and after every step that uses the component has returned. Until then,
/// the steps use the component without references of their own (`withObject`, which does not let it
/// escape): every provider call counts two atomic operations fewer, and every resolution two more
/// (see Architecture).
@usableFromInline struct Entered {
    @usableFromInline let reference: Unmanaged<AnyObject>
    /// The component's storage, which `reference` keeps alive.
    @usableFromInline unowned(unsafe) let storage: any EnteredComponent

    /// The component's identity: its address.
    @inlinable var identity: UInt { UInt(bitPattern: reference.toOpaque()) }

    /// The component, as a strong reference of the caller's own.
    @inlinable var object: AnyObject { reference.takeUnretainedValue() }

    /// Takes over a strong reference to `component`, of which `storage` is the storage.
    @inlinable init(_ component: AnyObject, storage: any EnteredComponent) {
        reference = Unmanaged.passRetained(component)
        self.storage = storage
    }

    /// Runs `body` with the component, which it uses without a reference count of its own.
    @inlinable @inline(__always)
    func withObject<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// Leaves the gate and gives back the reference.
    func leave() {
        storage.leaveGate()
        reference.release()
    }
}
