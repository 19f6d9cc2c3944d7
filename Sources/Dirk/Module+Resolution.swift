extension AnyModule {
    // MARK: The pipeline

    /// What builds a synchronous provider's instance in the component it receives, and whether it
    /// makes a fresh instance, which is cached nowhere and is its caller's to close.
    @usableFromInline typealias Build = (Component, _ fresh: Bool) throws -> AnyObject?

    /// The step of this module's provider at `site`, returning `type`, with `strategy`: inlined, so
    /// that a provider call builds its step in place on the step stack rather than copying it there.
    @inlinable @inline(__always) final func providerStep(
        _ strategy: ProviderStrategy, site: ProviderSite, returning type: Any.Type
    ) -> Step {
        Step(
            .provider, strategy: strategy, owner: UInt(bitPattern: ObjectIdentifier(self)),
            component: storage.address, site: site, type: type, subject: Swift.type(of: self),
            componentType: componentType)
    }

    /// The one path of every synchronous provider call that cannot return a cached `single` at once,
    /// and of every `transient` of a component whose attention word is set (the others run
    /// `runTransient`, the same step without the closures).
    ///
    /// In order: enter the component, through its gate; set up an override that this thread or task
    /// is setting up; serve a fresh request, and the observers when someone watches the component;
    /// then resolve through the provider's cell: the component's (`single`, `weak`, a key's), the
    /// resolution's (`scoped`), or none (`transient`, a fresh instance). `build` runs the factory,
    /// which consults overrides, and learns whether it makes a fresh instance, which is cached nowhere
    /// and is its caller's to close.
    @usableFromInline final func pipeline(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type, build: Build,
        configure: ((AnyObject, Component) throws -> Void)? = nil, configureMayWait: Bool = false
    ) throws -> AnyObject? {
        try ResolutionContext.withCurrent { context in
            let step = providerStep(strategy, site: site, returning: type)
            return try context.asOutermost {
                let component = storage.enter(in: context, for: step).orStop(step)
                // An observed call passes a `build` that tells it whether this call builds.
                func resolve(fresh: Bool = false, _ build: Build) throws -> AnyObject? {
                    try component.withObject { object in
                        let component = Erasure.component(object, as: Component.self)
                        return try resolveEntered(
                            strategy, fresh: fresh, keyValue: keyValue, key: key, step: step,
                            context: context, build: { try build(component, fresh) },
                            configure: configure.map { configure in { try configure($0, component) } },
                            configureMayWait: configureMayWait)
                    }
                }
                guard storage.attention != 0 else { return try resolve(build) }
                if let capture = OverrideCapture.current, !OverrideCapture.isSuspendedHere {
                    // An override that this thread sets up; the provider calls of its factory are
                    // ordinary.
                    setUpOverride(capture, key: key, keyValue: keyValue, step: step)
                    return try OverrideCapture.$isSuspendedHere.withValue(true) { try resolve(build) }
                }
                let isFresh = strategy.isCached && isFresh(at: context.depth)
                guard storage.isObserved else { return try resolve(fresh: isFresh, build) }
                return try observe(step, in: context) { built in
                    try resolve(fresh: isFresh) {
                        built?()
                        return try build($0, $1)
                    }
                }
            }
        }
    }

    /// Resolves the provider whose step is `step` through its cell, in the component the
    /// resolution has entered; a `fresh` call, like a `transient`'s, through none.
    private func resolveEntered(
        _ strategy: ProviderStrategy, fresh: Bool, keyValue: AnyHashable?, key: ProviderKey, step: Step,
        context: ResolutionContext, build: () throws -> AnyObject?, configure: ((AnyObject) throws -> Void)?,
        configureMayWait: Bool
    ) throws -> AnyObject? {
        if fresh || strategy == .transient {
            return try context.inUncachedStep(step) {
                let value = try build()
                if let configure, let value {
                    context.holds.configurationDepth += 1
                    defer { context.holds.configurationDepth -= 1 }
                    try configure(value)
                }
                return value
            }
        }
        func resolve(_ cell: CellReference, as step: Step) throws -> AnyObject? {
            try cell.resolveUnlessRetired(
                in: context, step: step, build: { try build()! }, configure: configure,
                configureMayWait: configureMayWait)
        }
        switch strategy {
        case .keyedSingle:
            while true {
                let cell = keyedCell(keyValue!, key: key, step: step, context: context)
                // Each key is a step of its own, owned by its cell's number, so that a cycle from one
                // key through another is told from a key that needs itself, and its message can name
                // the keys.
                let keyed = step.owned(by: cell.key.keyNumber)
                context.keyedSteps.append((keyed.owner, keyValue!))
                defer { context.keyedSteps.removeLast() }
                // Nil when a `reset()` dropped the key after it was found: it is looked up again.
                if let value = try resolve(cell, as: keyed) { return value }
            }
        case .scoped:
            // The resolution's instance, or one built in the provider's cell under the resolution's
            // number, which the resolution then keeps.
            if let instance = context.scopedInstance(cellKey(key)) { return instance }
            let store = context.scope
            let cell = store.cellKey(owner: ObjectIdentifier(self), provider: key, in: storage)
            // Listed whether the build succeeds or fails, so that the store drops the cell either way.
            defer { if !store.list(cell, in: storage, owner: self) { _ = storage.drop(cell) } }
            let value = try resolve(CellReference(host: storage, key: cell), as: step)
            if let value { context.scoped.append((key: cellKey(key), value: value, owner: self)) }
            return value
        default: return try resolve(CellReference(host: storage, key: cellKey(key)), as: step)
        }
    }

    /// Runs `build`, a `transient`'s factory, inside the provider's step at `site`, returning `type`,
    /// in the component the resolution entered, without the pipeline, for a component that nobody
    /// watches. A recursion stops the program with the path.
    @inlinable @inline(__always) final func runTransient<T>(
        site: ProviderSite, type: Any.Type, in context: ResolutionContext, _ build: (Component) throws -> T
    ) throws -> T {
        try context.inUncachedStep(providerStep(.transient, site: site, returning: type)) {
            try storage.withEntered(in: context, for: context.stack[context.depth &- 1], build)
        }
    }

    // MARK: Keys

    /// The cell of `keyValue`, a key of the `single(key:)` provider whose key is `key` and whose step
    /// is `step`, made on first use. Runs the key's `hash(into:)` and `==` with no lock held, as a
    /// step of their own, so that a key whose hashing calls its provider again is caught instead of
    /// recursing without end. A key added for an equal key meanwhile shows up as a new version of the
    /// keys, and the comparison is made again. Stops the program if another provider with the same
    /// key caches with another strategy.
    func keyedCell(_ keyValue: AnyHashable, key: ProviderKey, step: Step, context: ResolutionContext)
        -> CellReference
    {
        let hashing = step.owned(by: step.owner, kind: .keyHashing)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: step) }
        context.enter(hashing)
        defer { _ = context.leave() }
        let (provider, hash) = (cellKey(key), keyValue.hashValue)
        while true {
            let (known, first) = storage.withLock { state in
                (state.table.keys(of: provider, hash: hash), state.table.strategy(at: provider))
            }
            if let first, first != step.strategy { Diagnostics.providerClash(step, first: first) }
            if let found = known.keys.first(where: { $0.key == keyValue }) {
                return CellReference(host: storage, key: provider.forKey(found.serial))
            }
            let added = storage.withLock {
                $0.table.add(
                    keyValue, hash: hash, of: provider, strategy: step.strategy, ownerType: step.subject,
                    ifUnchangedSince: known.version)
            }
            if let added { return CellReference(host: storage, key: added) }
        }
    }
}
