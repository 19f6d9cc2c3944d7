/// Where a provider keeps its instances: the one part in which strategies differ.
///
/// Each strategy is a policy over the one pipeline (`AnyModule.resolve(_:key:site:type:build:)`):
/// the slot its provider keeps in the module, and how a call goes through that slot. Values travel
/// as objects (see `Erasure`), so the pipeline and the policies are compiled once for every type.
protocol CachePolicy {
    associatedtype Slot

    var strategy: ProviderStrategy { get }

    /// Runs `body` with the slot of the provider at `key`.
    func withSlot<Result>(
        in slots: ProviderSlots, key: ProviderKey, site: ProviderSite, context: ResolutionContext,
        _ body: (Slot) throws -> Result
    ) rethrows -> Result

    /// Whether a call now, as the step `frame`, would find an instance rather than build one, for
    /// traces.
    func hasInstance(in slot: Slot, context: ResolutionContext, frame: Frame) -> Bool

    /// The provider's instance, through its slot. `build` runs the factory as the step `frame`,
    /// with the component held; `configure` completes a new instance when `configures`.
    func resolve(
        in slot: Slot, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?,
        configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject?
}

/// A policy whose providers each keep a slot in their module: every strategy but `transient`.
protocol ProviderSlotPolicy: CachePolicy where Slot: AnyObject {
    /// Makes the provider's slot, on its first call.
    func makeSlot() -> Slot
}

extension ProviderSlotPolicy {
    /// The slot found in `slots`, or made there by `makeSlot()` on the provider's first call.
    func withSlot<Result>(
        in slots: ProviderSlots, key: ProviderKey, site: ProviderSite, context: ResolutionContext,
        _ body: (Slot) throws -> Result
    ) rethrows -> Result {
        try slots.withSlot(for: key, strategy: strategy, site: site, as: Slot.self, make: makeSlot, body)
    }
}

/// `single`: one instance per component, in a cell of the provider's slot.
struct SinglePolicy: ProviderSlotPolicy {
    var strategy: ProviderStrategy { .single }

    func makeSlot() -> OnceCell { OnceCell.make() }

    func hasInstance(in slot: OnceCell, context: ResolutionContext, frame: Frame) -> Bool {
        slot.hasValue
    }

    func resolve(
        in slot: OnceCell, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?, configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        try slot.resolve(
            in: context, frame: frame, build: { try build()! }, configures: configures, configure: configure)
    }
}

/// `weak`: one instance while someone holds it, in a cell of the provider's slot that refers to
/// it weakly.
struct WeakPolicy: ProviderSlotPolicy {
    var strategy: ProviderStrategy { .weak }

    func makeSlot() -> OnceCell { OnceCell.make(keepsWeakly: true) }

    func hasInstance(in slot: OnceCell, context: ResolutionContext, frame: Frame) -> Bool {
        slot.hasValue
    }

    func resolve(
        in slot: OnceCell, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?, configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        try slot.resolve(
            in: context, frame: frame, build: { try build()! }, configures: configures, configure: configure)
    }
}

/// `single(key:)`: one instance per component per key, in the cells of the provider's slot.
struct KeyedPolicy: ProviderSlotPolicy {
    let key: AnyHashable

    var strategy: ProviderStrategy { .keyedSingle }

    func makeSlot() -> KeyedCells { KeyedCells() }

    func hasInstance(in slot: KeyedCells, context: ResolutionContext, frame: Frame) -> Bool {
        // Looked up without making the key's cell: a trace only looks.
        hashingKey(in: context, for: frame) { slot.existingCell(for: key) }?.hasValue ?? false
    }

    func resolve(
        in slot: KeyedCells, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?, configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        while true {
            let cell = hashingKey(in: context, for: frame) { slot.cell(for: key) }
            // Each key is a step of its own, owned by its cell, which `cell` keeps alive, so that a
            // cycle from one key through another is told from a key that needs itself, and its
            // message can name the keys.
            let keyed = frame.owned(by: UInt(bitPattern: ObjectIdentifier(cell)))
            context.keyedSteps.append((keyed.owner, key))
            defer { context.keyedSteps.removeLast() }
            // Nil when a `reset()` dropped the cell after it was found: the key's cell is looked
            // up again.
            if let value = try cell.resolveUnlessRetired(
                in: context, frame: keyed, build: { try build()! }, configures: configures,
                configure: configure)
            {
                return value
            }
        }
    }

    /// Runs `body`, which runs the key's `hash(into:)` and `==`, as a step of its own, so that a
    /// key whose hashing calls this provider again, as the step `frame`, is caught instead of
    /// recursing without end.
    private func hashingKey<Result>(
        in context: ResolutionContext, for frame: Frame, _ body: () -> Result
    ) -> Result {
        let hashing = Frame(
            .keyHashing, strategy: .keyedSingle, owner: frame.owner, component: frame.component,
            site: frame.site,
            type: frame.type, subject: frame.subject, componentType: frame.componentType)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: frame) }
        context.enter(hashing)
        let result = body()
        if let failure = context.leave() { Diagnostics.resolutionEndFailed(failure, at: hashing) }
        return result
    }
}

/// `scoped`: one instance per resolution, in a cell of the resolution's `ScopeStore`, found by the
/// provider's key and its owner, the module whose provider it is.
///
/// The provider's entry in its module's table holds the one shared `ProviderMarker.scoped`: it
/// records the provider's strategy, for clashes and insight, and costs no object per provider.
struct ScopedPolicy: CachePolicy {
    /// The module whose provider this is: the owner of its instances in every resolution.
    let owner: AnyObject

    var strategy: ProviderStrategy { .scoped }

    func withSlot<Result>(
        in slots: ProviderSlots, key: ProviderKey, site: ProviderSite, context: ResolutionContext,
        _ body: (ProviderKey) throws -> Result
    ) rethrows -> Result {
        try slots.withSlot(
            for: key, strategy: strategy, site: site, as: ProviderMarker.self, make: { .scoped }
        ) {
            _ in try body(key)
        }
    }

    func hasInstance(in key: ProviderKey, context: ResolutionContext, frame: Frame) -> Bool {
        context.existingScopedCell(owner: owner, key: key)?.hasValue ?? false
    }

    func resolve(
        in key: ProviderKey, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?, configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        let cell = context.scopedCell(owner: owner, key: key)
        return try cell.resolve(
            in: context, frame: frame,
            build: {
                // Inside the step, whose resolution will end: an outermost call found a shared cell
                // outside any step, where nothing kept it.
                context.keepIfShared(cell, of: owner, key: key)
                return try build()!
            }, configures: configures, configure: configure)
    }
}

/// `transient`: nothing kept, not even a slot in the module: its only place is the resolution,
/// whose steps must not contain the same step already. (Fresh instances of cached providers take
/// this path too.)
struct TransientPolicy: CachePolicy {
    var strategy: ProviderStrategy { .transient }

    /// The resolution, without a lookup: the module's table never holds a transient's slot, and
    /// every call of a transient is new.
    func withSlot<Result>(
        in slots: ProviderSlots, key: ProviderKey, site: ProviderSite, context: ResolutionContext,
        _ body: (ResolutionContext) throws -> Result
    ) rethrows -> Result {
        try body(context)
    }

    func hasInstance(in slot: ResolutionContext, context: ResolutionContext, frame: Frame) -> Bool { false }

    func resolve(
        in slot: ResolutionContext, context: ResolutionContext, frame: Frame,
        build: () throws -> AnyObject?, configures: Bool, configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        context.enterUncached(frame)
        let value: AnyObject?
        do {
            value = try build()
            if configures, let value {
                context.configurationDepth += 1
                defer { context.configurationDepth -= 1 }
                try configure(value)
            }
        } catch {
            _ = context.leave()
            throw error
        }
        if let failure = context.leave() { throw failure }
        return value
    }
}
