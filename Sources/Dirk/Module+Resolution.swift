extension AnyModule {
    // MARK: Entry points, one per strategy

    /// The instance of a provider whose strategy caches (`single`, `weak`, `scoped`, or
    /// `single(key:)` for `keyValue`), through the pipeline with that strategy's policy.
    @usableFromInline
    final func resolveCached(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type, build: (Component) throws -> AnyObject, configures: Bool,
        configure: (AnyObject, Component) throws -> Void
    ) throws -> AnyObject {
        func resolve<Policy: CachePolicy>(_ policy: Policy) throws -> AnyObject {
            try self.resolve(
                policy, key: key, site: site, type: type, build: build, configures: configures,
                configure: configure)!
        }
        switch strategy {
        case .single: return try resolve(SinglePolicy())
        case .weak: return try resolve(WeakPolicy())
        case .scoped: return try resolve(ScopedPolicy(owner: self))
        default: return try resolve(KeyedPolicy(key: keyValue!))
        }
    }

    /// Runs a `transient`'s factory through the pipeline; `build` keeps the value itself, so
    /// that nothing travels as an object.
    @usableFromInline
    final func resolveTransient(
        key: ProviderKey, site: ProviderSite, type: Any.Type, build: (Component) throws -> Void
    ) throws {
        _ = try resolve(
            TransientPolicy(), key: key, site: site, type: type,
            build: { component in
                try build(component)
                return nil
            }, configures: false, configure: { _, _ in })
    }

    /// Runs `build`, a `transient`'s factory, inside the provider's step at `site`, returning
    /// `type`, with the component held by the resolution: the step of `TransientPolicy`, without
    /// the pipeline, for a module that nobody watches. A recursion stops the program with the path.
    @inlinable @inline(__always)
    final func runTransient<T>(
        site: ProviderSite, type: Any.Type, in context: ResolutionContext, _ build: (Component) throws -> T
    ) throws -> T {
        context.enterUncached { providerFrame(.transient, site: site, returning: type) }
        let value: T
        do {
            holdComponent(in: context, for: context.topFrame)
            value = try componentReference.withHeldObject(build)
        } catch {
            _ = context.leave()
            throw error
        }
        if let failure = context.leave() { throw failure }
        return value
    }

    // MARK: The pipeline

    /// The one path of every synchronous provider call that cannot return a cached `single` at
    /// once, and of every `transient` of a watched module (the others enter their step with
    /// `enterTransient`, the same step without the closures).
    ///
    /// In order: set up an override that this thread is setting up, before the provider's slot can
    /// be found (see `setUpOverride`); find or make the slot (one lookup; none for a `transient`,
    /// which keeps nothing); when someone watches the module, serve a fresh request and the
    /// observers; then let the strategy's policy resolve through the slot, with the component held
    /// by the resolution while the factory runs. (Overrides are consulted by `build`, which the
    /// strategy makes.)
    func resolve<Policy: CachePolicy>(
        _ policy: Policy, key: ProviderKey, site: ProviderSite, type: Any.Type,
        build: (Component) throws -> AnyObject?,
        configures: Bool, configure: (AnyObject, Component) throws -> Void
    ) throws -> AnyObject? {
        try withSlots { slots in
            try resolve(
                policy, in: slots, key: key, site: site, type: type, build: build,
                configures: configures, configure: configure)
        }
    }

    /// `resolve(_:key:site:type:build:configures:configure:)` with the module's slots.
    private func resolve<Policy: CachePolicy>(
        _ policy: Policy, in slots: ProviderSlots, key: ProviderKey, site: ProviderSite, type: Any.Type,
        build: (Component) throws -> AnyObject?,
        configures: Bool, configure: (AnyObject, Component) throws -> Void
    ) throws -> AnyObject? {
        try ResolutionContext.withCurrent { context in
            let frame = providerFrame(policy.strategy, site: site, returning: type)
            // An override that this thread sets up takes effect before the slot is found. (Its
            // component is watched while it is set up, so the check below sees the same capture.)
            if slots.attention != 0, let capture = OverrideCapture.current(on: context), !capture.isSuspended
            {
                setUpOverride(capture, key: key, frame: frame, in: slots)
            }
            // Inlined into the closure that the policy calls: out of line, it cost `cold` about 35
            // instructions per provider built. (Speed only.)
            @inline(__always) func resolve(in slot: Policy.Slot) throws -> AnyObject? {
                func buildInStep() throws -> AnyObject? {
                    try withComponent(context, frame, build)
                }
                func configureInStep(_ value: AnyObject) throws {
                    try withComponent(context, frame) { component in try configure(value, component) }
                }
                func resolveThroughSlot() throws -> AnyObject? {
                    try policy.resolve(
                        in: slot, context: context, frame: frame, build: buildInStep, configures: configures,
                        configure: configureInStep)
                }

                guard slots.attention != 0 else { return try resolveThroughSlot() }
                if let capture = OverrideCapture.current(on: context), !capture.isSuspended {
                    // The override's factory builds; the provider calls it makes are ordinary.
                    return try capture.whileSuspended(resolveThroughSlot)
                }
                if policy.strategy.isCached, let request = context.freshRequest,
                    request.module == ObjectIdentifier(self), request.depth == context.depth
                {
                    // A fresh instance: built like a transient's, cached nowhere; a new one for
                    // its observers.
                    func buildFresh() throws -> AnyObject? {
                        try TransientPolicy().resolve(
                            in: context, context: context, frame: frame, build: buildInStep,
                            configures: configures, configure: configureInStep)
                    }
                    guard slots.isObserved else { return try buildFresh() }
                    return try observe(frame, in: context, isNew: true, buildFresh)
                }
                guard slots.isObserved else { return try resolveThroughSlot() }
                return try observe(
                    frame, in: context, isNew: !policy.hasInstance(in: slot, context: context, frame: frame),
                    resolveThroughSlot)
            }

            return try policy.withSlot(in: slots, key: key, site: site, context: context, resolve)
        }
    }

    /// The step of this module's provider at `site`, returning `type`, with `strategy`.
    @usableFromInline func providerFrame(
        _ strategy: ProviderStrategy, site: ProviderSite, returning type: Any.Type
    ) -> Frame {
        Frame(
            .provider, strategy: strategy, owner: UInt(bitPattern: ObjectIdentifier(self)),
            component: componentReference.identity, site: site, type: type, subject: Swift.type(of: self),
            componentType: componentType)
    }

    /// Runs `body` with the component, which the resolution keeps alive until it ends; stops the
    /// program, naming `frame`'s provider, if the component was released.
    ///
    /// The first call into a component during a resolution takes one reference to it; later
    /// calls find it held and count no references.
    @usableFromInline func withComponent<Result>(
        _ context: ResolutionContext, _ frame: Frame, _ body: (Component) throws -> Result
    ) rethrows -> Result {
        holdComponent(in: context, for: frame)
        return try componentReference.withHeldObject(body)
    }

    /// Makes the resolution of `context` keep the component alive until it ends, unless it does
    /// already; stops the program, naming `frame`'s provider, if the component was released.
    @usableFromInline @inline(__always)
    func holdComponent(in context: ResolutionContext, for frame: @autoclosure () -> Frame) {
        guard componentReference.holdIfAlive(in: context) else {
            let frame = frame()
            Diagnostics.componentReleased(provider: frame.name, component: componentType, site: frame.site)
        }
    }
}
