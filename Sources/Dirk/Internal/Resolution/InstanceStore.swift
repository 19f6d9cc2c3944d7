/// Where a provider keeps its instances: the one part in which strategies differ.
///
/// The pipeline (`AnyModule.resolve(_:keyValue:key:site:type:build:configures:configure:)`) finds
/// the store of the provider it calls and resolves through it. Values travel as objects (see
/// `Erasure`), so the pipeline and the stores are compiled once for every type.
enum InstanceStore {
    /// `single` and `weak`: the cell in the provider's slot of its module.
    case cell(OnceCell)
    /// `single(key:)`: the cell of `key` among the provider's keyed cells, in its slot.
    case keyed(KeyedCells, key: AnyHashable)
    /// `scoped`: the provider's cell in the resolution's `ScopeStore`, found by the provider's key
    /// and its owner, the module whose provider it is. The provider's slot holds the one shared
    /// `ProviderMarker.scoped`: it records the provider's strategy, for clashes and insight.
    case scoped(owner: AnyObject, key: ProviderKey)
    /// `transient`, and a fresh instance of a cached provider: nothing kept, not even a slot. Its
    /// only place is the resolution, whose steps must not contain the same step already.
    case none

    /// The store of the provider at `key` of `owner`, with `strategy` (and `keyValue`, for
    /// `single(key:)`), whose slot in `slots` is made on the provider's first call.
    static func of(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, owner: AnyObject, key: ProviderKey,
        site: ProviderSite, in slots: ProviderSlots
    ) -> InstanceStore {
        switch strategy {
        case .single: return .cell(slots.slot(for: key, strategy: strategy, site: site) { OnceCell.make() })
        case .weak:
            return .cell(
                slots.slot(for: key, strategy: strategy, site: site) { OnceCell.make(keepsWeakly: true) })
        case .keyedSingle:
            return .keyed(
                slots.slot(for: key, strategy: strategy, site: site) { KeyedCells() }, key: keyValue!)
        case .scoped:
            _ = slots.slot(for: key, strategy: strategy, site: site) { ProviderMarker.scoped }
            return .scoped(owner: owner, key: key)
        default: return .none
        }
    }

    /// Whether a call now, as the step `frame`, would find an instance rather than build one, for
    /// traces.
    func hasInstance(in context: ResolutionContext, frame: Frame) -> Bool {
        switch self {
        case .cell(let cell): cell.hasValue
        // Looked up without making the key's cell: a trace only looks.
        case .keyed(let cells, let key):
            hashingKey(in: context, for: frame) { cells.existingCell(for: key) }?.hasValue ?? false
        case .scoped(let owner, let key):
            context.existingScopedCell(owner: owner, key: key)?.hasValue ?? false
        case .none: false
        }
    }

    /// The provider's instance, through the store. `build` runs the factory as the step `frame`,
    /// with the component held; `configure` completes a new instance when `configures`.
    func resolve(
        in context: ResolutionContext, frame: Frame, build: () throws -> AnyObject?, configures: Bool,
        configure: (AnyObject) throws -> Void
    ) throws -> AnyObject? {
        switch self {
        case .cell(let cell):
            return try cell.resolve(
                in: context, frame: frame, build: { try build()! }, configures: configures,
                configure: configure)
        case .keyed(let cells, let key):
            while true {
                let cell = hashingKey(in: context, for: frame) { cells.cell(for: key) }
                // Each key is a step of its own, owned by its cell, which `cell` keeps alive, so that
                // a cycle from one key through another is told from a key that needs itself, and its
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
        case .scoped(let owner, let key):
            let cell = context.scopedCell(owner: owner, key: key)
            return try cell.resolve(
                in: context, frame: frame,
                build: {
                    // Inside the step, whose resolution will end: an outermost call found a shared
                    // cell outside any step, where nothing kept it.
                    context.keepIfShared(cell, of: owner, key: key)
                    return try build()!
                }, configures: configures, configure: configure)
        case .none:
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

    /// Runs `body`, which runs a key's `hash(into:)` and `==`, as a step of its own, so that a key
    /// whose hashing calls its provider again, as the step `frame`, is caught instead of recursing
    /// without end.
    private func hashingKey<Result>(in context: ResolutionContext, for frame: Frame, _ body: () -> Result)
        -> Result
    {
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
