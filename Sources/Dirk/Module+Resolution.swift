/// Where a provider keeps its instances: the one part in which strategies differ.
///
/// Each strategy is a policy over the one pipeline, ``Module/resolve(_:key:site:make:configures:configure:)``:
/// the slot its provider keeps in the module, and how a call goes through that slot.
@usableFromInline protocol CachePolicy {
    associatedtype Value
    associatedtype Slot: AnyObject

    var strategy: ProviderStrategy { get }

    /// Makes the provider's slot, on its first call.
    func makeSlot() -> Slot

    /// Whether a call now would find an instance rather than build one, for traces.
    func hasInstance(in slot: Slot, context: ResolutionContext) -> Bool

    /// The provider's instance, through its slot. `build` runs the factory as the step `frame`,
    /// with the component held; `configure` completes a new instance when `configures`.
    func resolve<Failure: Error>(
        in slot: Slot, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value
}

extension Module {
    /// The one path of every synchronous provider call that cannot return a cached `single` at once.
    ///
    /// In order: find or make the provider's slot (one lookup); when someone watches the module,
    /// serve an override being set up, a fresh request, and the observers; use an override's
    /// factory if there is one; then let the strategy's policy resolve through the slot, with the
    /// component held by the resolution while the factory runs.
    @inlinable func resolve<Policy: CachePolicy, Failure: Error>(
        _ policy: Policy,
        key: ProviderKey,
        site: ProviderSite,
        make: (C) throws(Failure) -> Policy.Value,
        configures: Bool = false,
        configure: (Policy.Value, C) throws(Failure) -> Void = { _, _ in }
    ) throws(Failure) -> Policy.Value {
        let context = ResolutionContext.current
        let frame = providerFrame(policy.strategy, site: site, returning: Policy.Value.self)
        let (slot, isNew) = slots.slot(for: key, strategy: policy.strategy, site: site, as: Policy.Slot.self) {
            policy.makeSlot()
        }
        let override = slots.hasOverrides
            ? overrideFactory(for: key, frame: frame, returning: Policy.Value.self, failure: Failure.self) : nil

        func build() throws(Failure) -> Policy.Value {
            if let override { return try withComponent(context, frame, override) }
            return try withComponent(context, frame) { c throws(Failure) in try make(c) }
        }
        func complete(_ value: Policy.Value) throws(Failure) {
            try withComponent(context, frame) { c throws(Failure) in try configure(value, c) }
        }
        func resolveThroughSlot() throws(Failure) -> Policy.Value {
            try policy.resolve(
                in: slot, context: context, frame: frame, build: build, configures: configures, configure: complete)
        }

        guard slots.attention != 0 else { return try resolveThroughSlot() }
        if let capture = context.capture, !capture.isSuspended {
            return try captureOverride(capture, key: key, frame: frame, isNew: isNew) { () throws(Failure) in
                // Again from the top, now that the override's factory is in place.
                try resolve(policy, key: key, site: site, make: make, configures: configures, configure: configure)
            }
        }
        if policy.strategy.isCached, let request = context.freshRequest,
            request.module == ObjectIdentifier(self), request.depth == context.depth
        {
            // A fresh instance: built like a transient's, cached nowhere.
            return try TransientPolicy<Policy.Value>().resolve(
                in: ProviderMarker(), context: context, frame: frame, build: build, configures: configures,
                configure: complete)
        }
        guard slots.isObserved else { return try resolveThroughSlot() }
        return try observe(
            frame, in: context, isNew: !policy.hasInstance(in: slot, context: context), resolveThroughSlot)
    }

    /// The step of this module's provider at `site`, returning `type`, with `strategy`.
    @inlinable func providerFrame(_ strategy: ProviderStrategy, site: ProviderSite, returning type: Any.Type) -> Frame {
        Frame(
            .provider, strategy: strategy, owner: UInt(bitPattern: ObjectIdentifier(self)), component: owner.identity,
            site: site, type: type, subject: Swift.type(of: self), componentType: C.self)
    }

    /// Runs `body` with the component, which the resolution keeps alive until it ends; stops the
    /// program, naming `frame`'s provider, if the component was released.
    ///
    /// The first call into a component during a resolution takes one reference to it; later
    /// calls find it held and count no references.
    @inlinable
    func withComponent<Result, Failure: Error>(
        _ context: ResolutionContext, _ frame: Frame, _ body: (C) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard owner.holdIfAlive(in: context) else {
            Diagnostics.componentReleased(provider: frame.name, component: C.self, site: frame.site)
        }
        return try body(owner.heldObject)
    }
}
