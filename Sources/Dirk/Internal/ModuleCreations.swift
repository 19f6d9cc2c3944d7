/// The default modules a component is creating, each with the thread that creates it: the record
/// that makes module creation happen once without a lock held while the module's initializer runs.
///
/// Usually one module is created at a time, kept inline; a module whose initializer creates
/// another adds a second. Guarded by the component's lock.
struct ModuleCreations {
    /// One module being created.
    struct Creation {
        let type: ObjectIdentifier
        /// The creating thread. Unretained: the thread ends the creation before it returns.
        let builder: Unmanaged<ResolutionContext>
        /// What waiting threads sleep on, made by the first of them.
        var construction: Construction?
    }

    private var first: Creation?
    private var others: [Creation] = []

    /// The thread creating the module of type `type`, if one is.
    func builder(of type: ObjectIdentifier) -> Unmanaged<ResolutionContext>? {
        if let first, first.type == type { return first.builder }
        return others.first { $0.type == type }?.builder
    }

    /// Records that `context`'s thread creates the module of type `type`.
    mutating func begin(_ type: ObjectIdentifier, by context: ResolutionContext) {
        let creation = Creation(type: type, builder: .passUnretained(context))
        if first == nil { first = creation } else { others.append(creation) }
    }

    /// The construction that threads waiting for the module of type `type` sleep on, made by the
    /// first of them; `frame` is the waiter's, which names the same module as the builder's.
    mutating func construction(
        of type: ObjectIdentifier, frame: Frame, lock: Locked<ComponentState>
    ) -> Construction {
        func made(for creation: inout Creation) -> Construction {
            Construction.waitedOn(
                in: &creation.construction, builder: creation.builder.takeUnretainedValue(),
                frame: frame, lock: lock, configuring: false)
        }
        if first?.type == type { return made(for: &first!) }
        let index = others.firstIndex { $0.type == type }!
        return made(for: &others[index])
    }

    /// Ends the creation of the module of type `type` and wakes the threads waiting for it.
    mutating func end(_ type: ObjectIdentifier) {
        if let first, first.type == type {
            first.construction?.finishLocked()
            self.first = nil
        } else if let index = others.firstIndex(where: { $0.type == type }) {
            others.remove(at: index).construction?.finishLocked()
        }
    }
}
