extension Component {
    /// Starts recording which provider resolves which, in this component, for
    /// ``dependencyGraph()``.
    ///
    /// The graph then shows every dependency resolved while one of the component's providers ran,
    /// those between its ancestors' providers included: a session component's graph shows its
    /// providers' calls into the application component, and what those called in turn.
    ///
    /// Recording sends every provider call of the component and of its ancestors through a slower
    /// path that takes a lock, so turn it on where you look at the graph: in a debug build, a
    /// test, or a tool that draws it. It stays on for the component's lifetime.
    ///
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func startRecordingDependencies() -> Self {
        let starts = core.withLock { state in
            guard state.recording == nil else { return false }
            state.recording = DependencyRecord()
            state.addObservers(1)
            return true
        }
        if starts {
            var ancestors = selfAndAncestors()
            ancestors.removeFirst()
            watchForRecording(ancestors)
        }
        return self
    }

    /// Makes the providers of `ancestors` observed, for this component's recording, until this
    /// component is released (see `Component.deinit`).
    func watchForRecording(_ ancestors: [Component]) {
        for ancestor in ancestors { ancestor.core.withLock { $0.addObservers(1) } }
        core.withLock { $0.recording?.watched.append(contentsOf: ancestors.map(\.core)) }
    }

    /// Takes back the observers that the component's recording added to its ancestors, when the
    /// component is released. The ancestors are alive: the component held them until now.
    @inline(never) func stopWatchingAncestors() {
        let watched = core.withLock { state in state.recording?.watched ?? [] }
        for ancestor in watched { ancestor.withLock { $0.addObservers(-1) } }
    }

    /// How many observers watch the component's providers: traces under way, its own recording,
    /// and the recordings of its descendants. A test hook.
    package var observerCount: Int { core.withLock { $0.observers } }

    /// The component's structure now: parents, modules, the providers its modules have seen with
    /// their strategies and cached state, and, while recording is on, which provider resolved
    /// which. Transients, which keep nothing in their module, appear only while recording.
    ///
    /// - Returns: A snapshot of the graph.
    public func dependencyGraph() -> DependencyGraph {
        let (caches, recording) = core.withLock { state in
            (state.caches, state.recording)
        }
        var strategies = recording?.providers ?? [:]
        var statuses: [ProviderIdentity: CacheStatus] = [:]
        var modules: [String] = []
        // Read outside the component's lock; each cache takes its own. The ancestors' caches
        // tell the state of their providers that the recording saw.
        let ownCaches = caches.elements
        let ancestorCaches = (recording?.watched ?? []).flatMap { core in core.withLock { $0.caches.elements }
        }
        for (index, slots) in (ownCaches + ancestorCaches).enumerated() {
            let (moduleType, _) = slots.types
            let isOwn = index < ownCaches.count
            if isOwn { modules.append("\(moduleType)") }
            slots.forEachSlot { strategy, key, slot in
                let provider = ProviderIdentity(module: moduleType, key: key)
                if isOwn, strategies[provider] == nil, let strategy = DependencyGraph.Strategy(strategy) {
                    strategies[provider] = strategy
                }
                if let cache = ProviderCache(slot, tag: UInt(strategy.rawValue)) {
                    statuses[provider] = cache.status
                }
            }
        }
        let names = ProviderIdentity.uniqueNames(of: strategies.keys)
        return DependencyGraph(
            component: "\(type(of: self))",
            parents: parents.all.map { "\(type(of: $0.element))" },
            modules: modules,
            nodes: strategies.map { provider, strategy in
                let status = statuses[provider] ?? CacheStatus()
                return .init(
                    name: names[provider, default: provider.name], strategy: strategy,
                    isCached: status.holdsInstance,
                    builds: status.builds, waitingCallers: status.waiters)
            }.sorted { $0.name < $1.name },
            dependencies: (recording?.edges ?? []).map {
                .init(from: names[$0.from, default: $0.from.name], to: names[$0.to, default: $0.to.name])
            }
            .sorted { ($0.from, $0.to) < ($1.from, $1.to) })
    }

    /// Runs `body` and returns what it returns with a trace of the provider calls it made on this
    /// thread into this component and its ancestors: an indented tree, one line per call, saying
    /// whether the call built a new instance or found a cached one.
    ///
    /// ```text
    /// FeatureModule.viewModel() [transient] new
    ///   DataModule.store() [single] cached
    /// ```
    ///
    /// - Parameter body: The resolution to trace.
    /// - Returns: `body`'s result and the trace.
    public func trace<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> (
        value: T, trace: String
    ) {
        let components = selfAndAncestors()
        for component in components { component.core.withLock { $0.addObservers(1) } }
        let context = ResolutionContext.current
        let outer = context.traceLines
        context.traceLines = []
        defer {
            context.traceLines = outer
            for component in components { component.core.withLock { $0.addObservers(-1) } }
        }
        let value = try body()
        let lines = context.traceLines ?? []
        return (value, lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"))
    }

    /// This component and its ancestors, each once.
    func selfAndAncestors() -> [Component] {
        var all: [Component] = [self]
        var index = 0
        while index < all.count {
            all[index].parents.forEachParent { _, parent in
                if !all.contains(where: { $0 === parent }) { all.append(parent) }
                return true
            }
            index += 1
        }
        return all
    }
}

extension ComponentState {
    /// Adds `delta` observers to the component and to every module made for it.
    mutating func addObservers(_ delta: Int) {
        observers += delta
        caches.forEachElement { $0.addObservers(delta) }
    }
}

/// What a component records while recording is on.
struct DependencyRecord {
    /// One provider that resolved another.
    struct Edge: Hashable {
        let from: ProviderIdentity
        let to: ProviderIdentity
    }

    /// Each provider seen, with its strategy: the component's own, and its ancestors' that were
    /// called while one of its own ran.
    var providers: [ProviderIdentity: DependencyGraph.Strategy] = [:]
    var edges: Set<Edge> = []
    /// The ancestors whose providers the recording observes, by one observer each, which the
    /// component's release takes back.
    var watched: [ComponentCore] = []
}

extension AnyModule {
    /// Resolves with `resolve` while telling the observers: a trace under way on this thread gets
    /// a line, and each recording component that the call is made for gets the provider and the
    /// edge from the observed call that asked for it.
    ///
    /// A call is made for its own component, if that records, and for every component that the
    /// enclosing observed call was made for: a recording child sees its providers' calls into its
    /// ancestors, and theirs.
    @usableFromInline func observe<T, Failure: Error>(
        _ frame: Frame, in context: ResolutionContext, isNew: Bool, _ resolve: () throws(Failure) -> T
    ) throws(Failure) -> T {
        if context.traceLines != nil {
            let depth = context.observedCalls.count
            context.traceLines?.append(
                String(repeating: "  ", count: depth)
                    + "\(frame.name) [\(frame.strategy.name)] \(isNew ? "new" : "cached")")
        }
        let provider = ProviderIdentity(
            module: frame.subject, key: ProviderKey(site: frame.site, type: frame.type))
        let strategy = DependencyGraph.Strategy(frame.strategy)
        let requester = context.observedCalls.last
        var recorders = requester?.recorders ?? []
        for case let recorder as ComponentCore in recorders {
            recorder.withLock { state in
                state.recording?.providers[provider] = strategy
                _ = state.recording?.edges.insert(
                    DependencyRecord.Edge(from: requester!.provider, to: provider))
            }
        }
        let records = componentCore.withLock { state in
            state.recording?.providers[provider] = strategy
            return state.recording != nil
        }
        if records, !recorders.contains(where: { $0 === componentCore }) { recorders.append(componentCore) }
        context.observedCalls.append((provider, recorders))
        defer { context.observedCalls.removeLast() }
        return try resolve()
    }
}
