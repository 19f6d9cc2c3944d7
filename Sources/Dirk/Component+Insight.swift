extension Component {
    /// Starts recording which provider resolves which, in this component, for
    /// ``dependencyGraph()``.
    ///
    /// Recording sends every provider call of the component through a slower path that takes a
    /// lock, so turn it on where you look at the graph: in a debug build, a test, or a tool that
    /// draws it. It stays on for the component's lifetime.
    ///
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func startRecordingDependencies() -> Self {
        core.withLock { state in
            guard state.recording == nil else { return }
            state.recording = DependencyRecord()
            state.addObservers(1)
        }
        return self
    }

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
        var statuses: [String: CacheStatus] = [:]
        var modules: [String] = []
        // Read outside the component's lock; each cache takes its own.
        for slots in caches.elements {
            let (moduleType, _) = slots.types
            modules.append("\(moduleType)")
            slots.forEachSlot { strategy, function, slot in
                let name = "\(moduleType).\(function)"
                if strategies[name] == nil, let strategy = DependencyGraph.Strategy(strategy) {
                    strategies[name] = strategy
                }
                if let cache = ProviderCache(slot, tag: UInt(strategy.rawValue)) {
                    statuses[name] = cache.status
                }
            }
        }
        return DependencyGraph(
            component: "\(type(of: self))",
            parents: parents.all.map { "\(type(of: $0.element))" },
            modules: modules,
            nodes: strategies.keys.sorted().map { name in
                let status = statuses[name] ?? CacheStatus()
                return .init(
                    name: name, strategy: strategies[name]!, isCached: status.holdsInstance,
                    builds: status.builds,
                    waitingCallers: status.waiters)
            },
            dependencies: (recording?.edges ?? []).map { .init(from: $0.from, to: $0.to) }
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
        let from: String
        let to: String
    }

    /// Each provider seen, by name, with its strategy.
    var providers: [String: DependencyGraph.Strategy] = [:]
    var edges: Set<Edge> = []
}

extension AnyModule {
    /// Resolves with `resolve` while telling the observers: a trace under way on this thread gets
    /// a line, and a recording component gets the provider and the edge from the observed call
    /// that asked for it.
    @usableFromInline func observe<T, Failure: Error>(
        _ frame: Frame, in context: ResolutionContext, isNew: Bool, _ resolve: () throws(Failure) -> T
    ) throws(Failure) -> T {
        let name = frame.name
        if context.traceLines != nil {
            let depth = context.observedCalls.count
            context.traceLines?.append(
                String(repeating: "  ", count: depth)
                    + "\(name) [\(frame.strategy.name)] \(isNew ? "new" : "cached")")
        }
        let recorder: ComponentCore? = componentCore.withLock { state in
            guard state.recording != nil else { return nil }
            state.recording?.providers[name] = DependencyGraph.Strategy(frame.strategy)
            return componentCore
        }
        if let requester = context.observedCalls.last, let requesterRecorder = requester.recorder {
            (requesterRecorder as? ComponentCore)?.withLock { state in
                _ = state.recording?.edges.insert(DependencyRecord.Edge(from: requester.name, to: name))
            }
        }
        context.observedCalls.append((name, recorder))
        defer { context.observedCalls.removeLast() }
        return try resolve()
    }
}
