extension AnyModule {
    // MARK: The one route

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

    /// What a provider call does beside resolving its instance, decided once for threads and tasks
    /// (see `ProviderCall`); nil, for nothing, while the component's attention word is zero. An
    /// override that this thread or task is setting up captures the call; otherwise a `fresh(_:)` may
    /// answer it, and observers see it. `depth` is the caller's depth on its thread's stack, zero in
    /// async code; `requester` is the observed call that makes it directly, if any.
    func attend(
        _ strategy: ProviderStrategy, key: ProviderKey, keyValue: () -> AnyHashable?, step: Step, depth: Int,
        requester: () -> ObservedCall?
    ) -> ProviderCall? {
        guard storage.attention != 0 else { return nil }
        if let capture = OverrideCapture.current, !OverrideCapture.isSuspendedHere {
            // An override that this thread or task sets up; the provider calls of its factory are
            // ordinary.
            setUpOverride(capture, key: key, keyValue: keyValue(), step: step)
            return ProviderCall(isCaptured: true)
        }
        let isFresh = strategy.isCached && isFresh(at: depth)
        let observation = storage.isObserved ? beginObserving(step, requester: requester()) : nil
        return ProviderCall(isFresh: isFresh, observation: observation)
    }

    /// Where a provider call's instance comes from, decided once for threads and tasks (see
    /// `Route`): for a `transient` and a `fresh` call, no cell; for `single`, `weak` and an async
    /// `single`, the provider's cell in its component; for `single(key:)`, the key's cell, found by
    /// hashing the key outside any lock, as a step of its own; for `scoped`, the instance the
    /// resolution took already, or its cell in the resolution's scope, once its strategy is recorded
    /// in its component (see `CellTable.record`).
    ///
    /// Inlined into each performer, so that the `Route` it returns is not copied and destroyed as a
    /// value: out of line, they cost `cold` about 700 instructions per operation (callgrind).
    @inline(__always) func route(
        _ strategy: ProviderStrategy, key: ProviderKey, keyValue: () -> AnyHashable?, step: Step,
        isFresh: Bool, in agent: some ResolutionAgent
    ) throws -> Route {
        guard strategy.buildsInCell, !isFresh else { return .uncached }
        if strategy.isKeyed { return .key(try keyedCell(keyValue()!, key: key, step: step)) }
        guard strategy.isScoped else { return .cell(CellReference(host: storage, key: cellKey(key))) }
        let own = cellKey(key)
        let store = agent.scope
        if let taken = agent.takenScoped(own, from: store) { return .taken(taken) }
        storage.record(own, step: step)
        return .scoped(CellReference(host: store, key: own))
    }

    /// The step in which a call of the provider whose step is `step` claims `cell`, a key's cell: a
    /// step of its own, owned by the key's number, so that a cycle from one key through another is
    /// told from a key that needs itself, and its message can name the keys.
    func keyStep(_ step: Step, for cell: CellReference) -> Step { step.owned(by: UInt(cell.key.keyNumber)) }

    /// What a `scoped` call does once it resolved its `cell`, in the resolution's scope, with `value`:
    /// `agent` keeps the instance it took, until its part of the resolution ends.
    func keepScoped(_ value: AnyObject, from cell: CellReference, agent: some ResolutionAgent) {
        agent.keepScoped(
            ScopedInstance(key: cell.key, store: ObjectIdentifier(cell.host), value: value, owner: self))
    }

    // MARK: The thread's performer

    /// The one path of every synchronous provider call that cannot return a cached `single` at once,
    /// and of every `transient` of a component whose attention word is set (the others run
    /// `runTransient`, the same step without the closures): it carries out what `attend` and `route`
    /// decide, on the calling thread, which parks where a task would suspend.
    ///
    /// In order: enter the component, through its gate; attend; resolve through the route. `build`
    /// runs the factory, which consults overrides, and learns whether it makes a fresh instance,
    /// which is cached nowhere and is its caller's to close.
    @usableFromInline final func pipeline(
        _ strategy: ProviderStrategy, keyValue: () -> AnyHashable?, key: ProviderKey, site: ProviderSite,
        type: Any.Type, build: Build,
        configure: ((AnyObject, Component) throws -> Void)? = nil, configureMayWait: Bool = false
    ) throws -> AnyObject? {
        try ResolutionContext.withCurrent { context in
            let step = providerStep(strategy, site: site, returning: type)
            return try context.asOutermost {
                let entry = storage.enter(in: context, for: step).orStop(step)
                let call = attend(
                    strategy, key: key, keyValue: keyValue, step: step, depth: context.depth,
                    requester: { context.observedRequester })
                return try entry.withObject { object in
                    let component = Erasure.component(object, as: Component.self)
                    let isFresh = call?.isFresh ?? false
                    // `factory` runs `build`; a traced call's learns that this call builds.
                    func resolveCall(_ factory: () throws -> AnyObject?) throws -> AnyObject? {
                        try resolveOnThread(
                            strategy, key: key, keyValue: keyValue, step: step, isFresh: isFresh,
                            context: context, build: factory,
                            configure: configure.map { configure in { try configure($0, component) } },
                            configureMayWait: configureMayWait)
                    }
                    guard let call else { return try resolveCall { try build(component, isFresh) } }
                    if call.isCaptured {
                        return try OverrideCapture.$isSuspendedHere.withValue(true) {
                            try resolveCall { try build(component, isFresh) }
                        }
                    }
                    guard let observation = call.observation else {
                        return try resolveCall { try build(component, isFresh) }
                    }
                    context.observedCalls.append((observation.call, context.depth, context.endedResolutions))
                    defer { context.observedCalls.removeLast() }
                    guard !observation.added.isEmpty else {
                        return try resolveCall { try build(component, isFresh) }
                    }
                    var isNew = false
                    defer { Trace.end(observation.added, isNew: isNew) }
                    return try Trace.$current.withValue(observation.traces) {
                        try resolveCall {
                            isNew = true
                            return try build(component, isFresh)
                        }
                    }
                }
            }
        }
    }

    /// Resolves the provider whose step is `step` on this thread, through the route that `route`
    /// decides, in the component the resolution has entered.
    private func resolveOnThread(
        _ strategy: ProviderStrategy, key: ProviderKey, keyValue: () -> AnyHashable?, step: Step,
        isFresh: Bool, context: ResolutionContext, build: () throws -> AnyObject?,
        configure: ((AnyObject) throws -> Void)?, configureMayWait: Bool
    ) throws -> AnyObject? {
        while true {
            switch try route(
                strategy, key: key, keyValue: keyValue, step: step, isFresh: isFresh, in: context)
            {
            case .uncached:
                return try context.inUncachedStep(step) {
                    let value = try build()
                    if let configure, let value { try context.configureUncached { try configure(value) } }
                    return value
                }
            case .taken(let taken): return taken
            case .cell(let cell):
                return try cell.resolveUnlessRetired(
                    in: context, step: step, build: { try build()! }, configure: configure,
                    configureMayWait: configureMayWait)
            case .key(let cell):
                let cellStep = keyStep(step, for: cell)
                // A key's step, for the messages that name the keys of a cycle.
                context.keyedSteps.append((cellStep.owner, keyValue()!))
                defer { context.keyedSteps.removeLast() }
                let value = try cell.resolveUnlessRetired(
                    in: context, step: cellStep, build: { try build()! }, configure: configure,
                    configureMayWait: configureMayWait)
                // Nil when a `reset()` dropped a key's cell after it was found: it is looked up again.
                if let value { return value }
            case .scoped(let cell):
                let value = try cell.resolveUnlessRetired(
                    in: context, step: step, build: { try build()! }, configure: configure,
                    configureMayWait: configureMayWait)!
                keepScoped(value, from: cell, agent: context)
                return value
            }
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

    // MARK: The task's performer

    /// The one path of every async provider call: it carries out what `attend` and `route` decide,
    /// in the task's agent of its async resolution, which suspends where a thread would park. A task
    /// that waits for another's build stops waiting when it is cancelled only if `cancellable`: if
    /// the provider throws `any Error`.
    ///
    /// The agent keeps the component entered until its outermost call returns: released in between,
    /// the component would empty its surviving modules' caches while the build was under way.
    @usableFromInline final func asyncPipeline(
        _ strategy: ProviderStrategy, key: ProviderKey, keyValue: AnyHashable? = nil, site: ProviderSite,
        type: Any.Type, cancellable: Bool, configure: ((AnyObject, Component) async throws -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        build: (Component, _ fresh: Bool) async throws -> AnyObject
    ) async throws -> AnyObject {
        let step = providerStep(strategy, site: site, returning: type)
        return try await TaskAgent.withCurrent(at: step) { (agent) async throws in
            let component = Erasure.component(
                storage.enter(in: agent, for: step).orStop(step).object, as: Component.self)
            // Async code runs inside no synchronous step of its thread: depth zero.
            let call = attend(
                strategy, key: key, keyValue: { keyValue }, step: step, depth: 0,
                requester: { ObservedAsyncCall.requester })
            let isFresh = call?.isFresh ?? false
            // `factory` runs `build`; a traced call's learns that this call builds.
            func resolveCall(_ factory: () async throws -> AnyObject) async throws -> AnyObject {
                try await resolveInTask(
                    strategy, key: key, keyValue: keyValue, step: step, isFresh: isFresh, agent: agent,
                    cancellable: cancellable, build: factory,
                    configure: configure.map { configure in { try await configure($0, component) } })
            }
            guard let call else { return try await resolveCall { try await build(component, isFresh) } }
            if call.isCaptured {
                return try await OverrideCapture.$isSuspendedHere.outcome(true) {
                    try await resolveCall { try await build(component, isFresh) }
                }.get()
            }
            // Observed as a synchronous call is, with the task's observed call in place of the
            // thread's.
            guard let observation = call.observation else {
                return try await resolveCall { try await build(component, isFresh) }
            }
            var isNew = false
            let observed = ObservedAsyncCall(call: observation.call, agent: agent, stepIndex: agent.depth)
            let outcome = await ObservedAsyncCall.$current.outcome(observed) {
                try await Trace.$current.outcome(observation.traces) {
                    try await resolveCall {
                        isNew = true
                        return try await build(component, isFresh)
                    }
                }.get()
            }
            Trace.end(observation.added, isNew: isNew)
            return try outcome.get()
        }
    }

    /// Resolves the provider whose step is `step` in this task, through the route that `route`
    /// decides, in the component the agent has entered.
    private func resolveInTask(
        _ strategy: ProviderStrategy, key: ProviderKey, keyValue: AnyHashable?, step: Step, isFresh: Bool,
        agent: TaskAgent, cancellable: Bool, isolation: isolated (any Actor)? = #isolation,
        build: () async throws -> AnyObject, configure: ((AnyObject) async throws -> Void)?
    ) async throws -> AnyObject {
        while true {
            // The thread's context hashes a key, as a step of its own, with no async step between.
            switch try route(
                strategy, key: key, keyValue: { keyValue }, step: step, isFresh: isFresh, in: agent)
            {
            case .uncached:
                return try await agent.run(step, uncached: true) {
                    let value = try await build()
                    if isFresh, let configure {
                        try await agent.configureUncached { try await configure(value) }
                    }
                    return value
                }
            case .taken(let taken): return taken
            case .cell(let cell):
                return try await cell.resolve(
                    in: agent, step: step, cancellable: cancellable, build: build, configure: configure)!
            case .key(let cell):
                let value = try await cell.resolve(
                    in: agent, step: keyStep(step, for: cell), cancellable: cancellable, build: build,
                    configure: configure)
                // Nil when a `reset()` dropped a key's cell after it was found: it is looked up again.
                if let value { return value }
            case .scoped(let cell):
                let value = try await cell.resolve(
                    in: agent, step: step, cancellable: cancellable, build: build, configure: configure)!
                keepScoped(value, from: cell, agent: agent)
                return value
            }
        }
    }

    // MARK: Keys

    /// The cell of `keyValue`, a key of the `single(key:)` provider whose key is `key` and whose step
    /// is `step`, made on first use. Runs the key's `hash(into:)` and `==` with no lock held, as a
    /// step of their own on the calling thread, so that a key whose hashing calls its provider again
    /// is caught instead of recursing without end; throws, as the provider's error, the failure of a
    /// resolution that the hashing began and ended (see `ResolutionEndFailure`). A key added for an
    /// equal key meanwhile shows up as a new version of the keys, and the comparison is made again.
    /// Stops the program if another provider with the same key caches with another strategy.
    func keyedCell(_ keyValue: AnyHashable, key: ProviderKey, step: Step) throws -> CellReference {
        try ResolutionContext.withCurrent { context in
            let hashing = step.owned(by: step.owner, kind: .keyHashing)
            if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: step) }
            context.enter(hashing)
            let found = findKeyedCell(keyValue, key: key, step: step)
            if let failure = context.leave() { throw failure }
            return found
        }
    }

    /// The cell of `keyValue` (see `keyedCell(_:key:step:)`), looked up with the key's hashing and
    /// comparisons under way.
    private func findKeyedCell(_ keyValue: AnyHashable, key: ProviderKey, step: Step) -> CellReference {
        let provider = cellKey(key)
        let hash = keyValue.hashValue
        while true {
            let known = storage.withLock { state in state.table.keys(of: provider, hash: hash) }
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

/// What a provider call does beside resolving its instance (`AnyModule.attend`): decided once, for
/// threads and tasks, and carried out by each.
@usableFromInline struct ProviderCall {
    /// An override that this thread or task sets up captured the call (`setUpOverride`): it resolves
    /// with the capture suspended, so that its factory's calls are ordinary, and is neither fresh nor
    /// observed.
    var isCaptured = false
    /// The call answers a `fresh(_:)`: it builds anew, caches nothing, and records no close action.
    var isFresh = false
    /// The call's observation, begun, when someone observes the component.
    var observation: Observation?
}

/// Where a provider call's instance comes from (`AnyModule.route`).
enum Route {
    /// No cell: the factory runs in an uncached step, which stops the program if it recurses (a
    /// `transient`, a `fresh` call).
    case uncached
    /// The `scoped` instance that the resolution took already from its scope.
    case taken(AnyObject)
    /// The provider's own cell in its component: a `single`'s, a `weak`'s.
    case cell(CellReference)
    /// A key's cell in the component, claimed in a step of its own (`keyStep`); a `reset()` may
    /// drop it after it was found.
    case key(CellReference)
    /// A `scoped` instance's cell in the resolution's scope (`ScopeStore`).
    case scoped(CellReference)
}
