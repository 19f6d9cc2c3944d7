extension AnyModule {
    // MARK: Entry points, one per strategy

    /// The instance of a provider whose strategy caches (`single`, `weak`, `scoped`, or
    /// `single(key:)` for `keyValue`), through the pipeline.
    @usableFromInline
    final func resolveCached(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type, build: (Component) throws -> AnyObject, configures: Bool,
        configure: (AnyObject, Component) throws -> Void
    ) throws -> AnyObject {
        try resolve(
            strategy, keyValue: keyValue, key: key, site: site, type: type, build: build,
            configures: configures,
            configure: configure)!
    }

    /// Runs a `transient`'s factory through the pipeline; `build` keeps the value itself, so
    /// that nothing travels as an object.
    @usableFromInline
    final func resolveTransient(
        key: ProviderKey, site: ProviderSite, type: Any.Type, build: (Component) throws -> Void
    ) throws {
        _ = try resolve(
            .transient, keyValue: nil, key: key, site: site, type: type,
            build: { component in
                try build(component)
                return nil
            }, configures: false, configure: { _, _ in })
    }

    /// Runs `build`, a `transient`'s factory, inside the provider's step at `site`, returning
    /// `type`, with the component held by the resolution: the step of `InstanceStore.none`, without
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
    /// `runTransient`, the same step without the closures).
    ///
    /// In order: set up an override that this thread is setting up, before the provider's slot can
    /// be found (see `setUpOverride`); find the provider's store, making its slot (none for a
    /// `transient`, which keeps nothing); when someone watches the module, serve a fresh request
    /// and the observers; then resolve through the store, with the component held by the
    /// resolution while the factory runs. (Overrides are consulted by `build`, which the strategy
    /// makes.)
    func resolve(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type,
        build: (Component) throws -> AnyObject?, configures: Bool,
        configure: (AnyObject, Component) throws -> Void
    ) throws -> AnyObject? {
        try withSlots { slots in
            try ResolutionContext.withCurrent { context in
                let frame = providerFrame(strategy, site: site, returning: type)
                if slots.attention != 0 { refuseAfterShutdown(frame) }
                // An override that this thread sets up takes effect before the slot is made. (Its
                // component is watched while it is set up, so the check below sees the same capture.)
                if slots.attention != 0, let capture = OverrideCapture.current(on: context),
                    !capture.isSuspended
                {
                    setUpOverride(capture, key: key, frame: frame, in: slots)
                }
                let store = InstanceStore.of(
                    strategy, keyValue: keyValue, owner: self, key: key, site: site, in: slots)
                func resolve(through store: InstanceStore) throws -> AnyObject? {
                    try store.resolve(
                        in: context, frame: frame, build: { try withComponent(context, frame, build) },
                        configures: configures,
                        configure: { value in try withComponent(context, frame) { try configure(value, $0) } }
                    )
                }
                guard slots.attention != 0 else { return try resolve(through: store) }
                if let capture = OverrideCapture.current(on: context), !capture.isSuspended {
                    // The override's factory builds; the provider calls it makes are ordinary.
                    return try capture.whileSuspended { try resolve(through: store) }
                }
                if strategy.isCached, context.isFreshRequest(for: ObjectIdentifier(self)) {
                    // A fresh instance: built like a transient's, cached nowhere; a new one for its
                    // observers.
                    guard slots.isObserved else { return try resolve(through: .none) }
                    return try observe(frame, in: context, isNew: true) { try resolve(through: .none) }
                }
                guard slots.isObserved else { return try resolve(through: store) }
                return try observe(frame, in: context, isNew: !store.hasInstance(in: context, frame: frame)) {
                    try resolve(through: store)
                }
            }
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
