extension ComponentStorage {
    // MARK: Entering the component

    /// The component, entered by the resolution `context` (the thread's, or a task's part of an
    /// async one): counted in the component's gate and kept alive until the resolution ends, unless
    /// the resolution entered it already. Stops the program, naming `frame`'s provider or handle, if the
    /// component was released or its shutdown refuses the call.
    @inlinable @inline(__always)
    final func enter(in context: some EnteringResolution, for frame: @autoclosure () -> Frame) -> LentObject {
        if let entry = context.entry(of: address) { return LentObject(entry) }
        let component = admitted(for: frame())
        context.enter(component, storage: self)
        return LentObject(component)
    }

    /// Runs `body` with the component, entered by the thread's resolution (see `enter(in:for:)`),
    /// lent without a reference of its own: the resolution keeps it alive until it ends.
    @inlinable @inline(__always)
    final func withEntered<Result>(
        in context: ResolutionContext, for frame: @autoclosure () -> Frame,
        _ body: (Component) throws -> Result
    ) rethrows -> Result {
        try enter(in: context, for: frame()).withObject {
            try body(Erasure.component($0, as: Component.self))
        }
    }

    /// `withEntered(in:for:_:)` for the read of a handle, the step `frame`. A read that the
    /// component's shutdown refuses runs `read` all the same, without entering the component, so that
    /// the first of the component's providers it calls is refused in turn and named as what the
    /// handle reads (see `RefusedRead`).
    final func withEntered<Result>(
        reading frame: Frame, in context: ResolutionContext, _ read: (Component) -> Result
    ) -> Result {
        if let refused = enterForRead(in: context) {
            RefusedRead.$current.withValue((address, frame.name, frame.site)) { _ = read(refused) }
            refused.refusedRead(frame)
        }
        return withEntered(in: context, for: frame, read)
    }

    /// Enters the component for a handle's read by the resolution `context`, unless it entered it
    /// already, and returns nil; or returns the component when its shutdown refuses the read, which
    /// the caller then runs without entering it, under `RefusedRead`. A component that is gone is
    /// left to `enter(in:for:)`, which names it.
    final func enterForRead(in context: some EnteringResolution) -> Component? {
        guard context.entry(of: address) == nil, let component else { return nil }
        guard component.admits() else { return component }
        context.enter(component, storage: self)
        return nil
    }

    /// The component, admitted through its gate for the call whose step is `frame`.
    @usableFromInline @inline(never)
    final func admitted(for frame: Frame) -> Component {
        guard let component else {
            if frame.kind == .handle {
                Diagnostics.handleAfterRelease(frame.name, component: frame.componentType, site: frame.site)
            }
            Diagnostics.componentReleased(
                provider: frame.name, component: frame.componentType, site: frame.site)
        }
        component.admit(frame)
        return component
    }
}

extension AnyModule {
    // MARK: The pipeline

    /// The step of this module's provider at `site`, returning `type`, with `strategy`: inlined, so
    /// that a provider call builds its step in place on the step stack rather than copying it there.
    @inlinable @inline(__always)
    final func providerFrame(
        _ strategy: ProviderStrategy, site: ProviderSite, returning type: Any.Type
    ) -> Frame {
        Frame(
            .provider, strategy: strategy, owner: UInt(bitPattern: ObjectIdentifier(self)),
            component: storage.address, site: site, type: type, subject: Swift.type(of: self),
            componentType: componentType)
    }

    /// The one path of every synchronous provider call that cannot return a cached `single` at once,
    /// and of every `transient` of a watched component (the others run `runTransient`, the same step
    /// without the closures).
    ///
    /// In order: enter the component, through its gate; set up an override that this thread is
    /// setting up; when someone watches the component, serve a fresh request and the observers;
    /// then resolve through the provider's cell: the component's (`single`, `weak`, a key's), the
    /// resolution's (`scoped`), or none (`transient`, a fresh instance). `build` runs the factory,
    /// which consults overrides, and learns whether it makes a fresh instance, which is cached nowhere
    /// and is its caller's to close.
    @usableFromInline final func resolve(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type, build: (Component, _ fresh: Bool) throws -> AnyObject?,
        configure: ((AnyObject, Component) throws -> Void)? = nil, configureMayWait: Bool = false
    ) throws -> AnyObject? {
        try ResolutionContext.withCurrent { context in
            let frame = providerFrame(strategy, site: site, returning: type)
            return try context.asOutermost {
                let component = storage.enter(in: context, for: frame)
                func resolve(fresh: Bool = false) throws -> AnyObject? {
                    try component.withObject { object in
                        let component = Erasure.component(object, as: Component.self)
                        return try resolveEntered(
                            strategy, fresh: fresh, keyValue: keyValue, key: key, frame: frame,
                            context: context,
                            build: { try build(component, fresh) },
                            configure: configure.map { configure in { try configure($0, component) } },
                            configureMayWait: configureMayWait)
                    }
                }
                guard storage.attention.relaxed != 0 else { return try resolve() }
                if let capture = OverrideCapture.current(on: context), !capture.isSuspended {
                    // An override that this thread sets up; the provider calls of its factory are
                    // ordinary.
                    setUpOverride(capture, key: key, keyValue: keyValue, frame: frame)
                    return try capture.whileSuspended { try resolve() }
                }
                let isFresh = strategy.isCached && context.isFreshRequest(for: ObjectIdentifier(self))
                guard storage.isObserved else { return try resolve(fresh: isFresh) }
                let isNew =
                    isFresh
                    || !hasInstance(strategy, keyValue: keyValue, key: key, frame: frame, context: context)
                return try observe(frame, in: context, isNew: isNew) { try resolve(fresh: isFresh) }
            }
        }
    }

    /// Resolves the provider whose step is `frame` through its cell, in the component the
    /// resolution has entered; a `fresh` call, like a `transient`'s, through none.
    private func resolveEntered(
        _ strategy: ProviderStrategy, fresh: Bool, keyValue: AnyHashable?, key: ProviderKey, frame: Frame,
        context: ResolutionContext, build: () throws -> AnyObject?, configure: ((AnyObject) throws -> Void)?,
        configureMayWait: Bool
    ) throws -> AnyObject? {
        if fresh || strategy == .transient {
            return try context.inUncachedStep(frame) {
                let value = try build()
                if let configure, let value {
                    context.configurationDepth += 1
                    defer { context.configurationDepth -= 1 }
                    try configure(value)
                }
                return value
            }
        }
        func resolve(_ cell: CellReference, as frame: Frame) throws -> AnyObject? {
            try cell.resolveUnlessRetired(
                in: context, frame: frame, build: { try build()! }, configure: configure,
                configureMayWait: configureMayWait)
        }
        switch strategy {
        case .keyedSingle:
            while true {
                let cell = keyedCell(keyValue!, key: key, frame: frame, context: context)
                // Each key is a step of its own, owned by its cell's number, so that a cycle from one
                // key through another is told from a key that needs itself, and its message can name
                // the keys.
                let keyed = frame.owned(by: UInt(cell.key.serial))
                context.keyedSteps.append((keyed.owner, keyValue!))
                defer { context.keyedSteps.removeLast() }
                // Nil when a `reset()` dropped the key after it was found: it is looked up again.
                if let value = try resolve(cell, as: keyed) { return value }
            }
        case .scoped:
            // The resolution's instance, or one built in the provider's cell under the resolution's
            // number, which the resolution then keeps.
            if let instance = context.scopedInstance(cellKey(key), owner: self) { return instance }
            let (id, store) = context.scopes
            let cell = CellKey(owner: ObjectIdentifier(self), provider: key, serial: id)
            // Listed whether the build succeeds or fails, so that the store drops the cell either way.
            defer { if let store, !store.list(cell, in: storage, owner: self) { _ = storage.drop(cell) } }
            guard let value = try resolve(CellReference(host: storage, key: cell), as: frame) else {
                return nil
            }
            context.keep((key: cellKey(key), value: value, owner: self))
            return value
        default:
            return try resolve(CellReference(host: storage, key: cellKey(key)), as: frame)
        }
    }

    /// The cell of `keyValue`, a key of the `single(key:)` provider whose key is `key` and whose step
    /// is `frame`, made on first use. Runs the key's `hash(into:)` and `==` with no lock held, as a
    /// step of their own, so that a key whose hashing calls its provider again is caught instead of
    /// recursing without end. A key added for an equal key meanwhile shows up as a new version of the
    /// keys, and the comparison is made again.
    private func keyedCell(
        _ keyValue: AnyHashable, key: ProviderKey, frame: Frame, context: ResolutionContext
    )
        -> CellReference
    {
        hashing(at: frame, in: context) {
            let (provider, hash) = (cellKey(key), keyValue.hashValue)
            while true {
                let (candidates, version) = storage.keys(of: provider, hash: hash, frame: frame)
                if let found = candidates.first(where: { $0.key == keyValue }) {
                    return CellReference(
                        host: storage,
                        key: CellKey(owner: provider.owner, provider: key, serial: found.serial))
                }
                if let added = storage.withLock({
                    $0.table.add(
                        keyValue, hash: hash, of: provider, ownerType: frame.subject,
                        ifUnchangedSince: version)
                }) {
                    return CellReference(host: storage, key: added)
                }
            }
        }
    }

    /// Runs `body`, which runs a key's `hash(into:)` and `==`, as a step of its own, so that a key
    /// whose hashing calls its provider again, as the step `frame`, is caught instead of recursing
    /// without end.
    private func hashing<Result>(at frame: Frame, in context: ResolutionContext, _ body: () -> Result)
        -> Result
    {
        let hashing = Frame(
            .keyHashing, strategy: .keyedSingle, owner: frame.owner, component: frame.component,
            site: frame.site,
            type: frame.type, subject: frame.subject, componentType: frame.componentType)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: frame) }
        context.enter(hashing)
        defer { _ = context.leave() }
        return body()
    }

    /// Whether a call now, as the step `frame`, would find an instance rather than build one, for
    /// traces.
    private func hasInstance(
        _ strategy: ProviderStrategy, keyValue: AnyHashable?, key: ProviderKey, frame: Frame,
        context: ResolutionContext
    ) -> Bool {
        let serial: UInt64?
        switch strategy {
        case .single, .weak: serial = 0
        case .keyedSingle:
            // Looked up without making the key's cell: a trace only looks.
            serial = hashing(at: frame, in: context) {
                storage.keys(of: cellKey(key), hash: keyValue!.hashValue, frame: frame).keys
                    .first { $0.key == keyValue }?.serial
            }
        case .scoped:
            if context.scopedInstance(cellKey(key), owner: self) != nil { return true }
            serial = context.scopes.id
        default: return false
        }
        guard let serial else { return false }
        let cell = CellKey(owner: ObjectIdentifier(self), provider: key, serial: serial)
        // The value itself, let go here, after the lock: a `weak` one's reference may be the last.
        let value =
            CellReference(host: storage, key: cell).withMachine { machine, _ in machine.readyValue } ?? nil
        return value != nil
    }

    /// Runs `build`, a `transient`'s factory, inside the provider's step at `site`, returning `type`,
    /// in the component the resolution entered, without the pipeline, for a component that nobody
    /// watches. A recursion stops the program with the path.
    @inlinable @inline(__always)
    final func runTransient<T>(
        site: ProviderSite, type: Any.Type, in context: ResolutionContext, _ build: (Component) throws -> T
    ) throws -> T {
        try context.inUncachedStep(providerFrame(.transient, site: site, returning: type)) {
            try storage.withEntered(in: context, for: context.topFrame, build)
        }
    }
}

extension ComponentStorage {
    /// Whether anyone observes the component's providers: a trace, a recording, or an override being
    /// set up.
    var isObserved: Bool { attention.relaxed >= Self.observer }

    /// The keys of the `single(key:)` provider whose cell key is `provider` and whose step is
    /// `frame` that hash to `hash`, and their version; stops the program if another provider with the
    /// same key caches with another strategy.
    func keys(of provider: CellKey, hash: Int, frame: Frame) -> (keys: [CellTable.KeyEntry], version: UInt64)
    {
        let (keys, first) = withLock { state in
            (state.table.keys(of: provider, hash: hash), state.table.strategy(at: provider))
        }
        if let first, first != .keyedSingle { Diagnostics.providerClash(frame, first: first) }
        return keys
    }

}
