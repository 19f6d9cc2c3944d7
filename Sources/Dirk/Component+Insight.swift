extension Component {
    /// Starts recording which provider resolves which, in this component, for
    /// ``dependencyGraph()``.
    ///
    /// The graph then shows every dependency resolved while one of the component's providers ran,
    /// those between its ancestors' providers included: a session component's graph shows its
    /// providers' calls into the application component, and what those called in turn. Ancestors
    /// registered later, on the component or on one of its ancestors, are watched too.
    ///
    /// Recording sends every provider call of the component and of its ancestors through a slower
    /// path that takes a lock, so turn it on where you look at the graph: in a debug build, a
    /// test, or a tool that draws it. It stays on for the component's lifetime.
    ///
    /// - Returns: This component, for chaining.
    @discardableResult public func startRecordingDependencies() -> Self {
        startRecordingDependencies(walkingAncestorsWith: { $0.selfAndAncestors() })
    }

    /// ``startRecordingDependencies()``, walking a component's ancestors with `walk`. A test hook:
    /// a test's walk registers parents as it goes.
    @discardableResult
    package func startRecordingDependencies(walkingAncestorsWith walk: (Component) -> [Component]) -> Self {
        let starts = storage.withLock { state in
            guard state.extras?.recording == nil else { return false }
            state.withExtras { $0.recording = DependencyRecord(component: identity) }
            storage.addObservers(1, for: storage, in: &state)
            return true
        }
        if starts { Self.watch(self, andAncestorsExcept: [self], for: storage, walkingAncestorsWith: walk) }
        return self
    }

    /// Makes the providers of `component` and of its ancestors, except those in `watched`, which
    /// the caller watches already, observed for the recording of the component whose storage is
    /// `recorder`, until the recording
    /// component is released (see `Component.deinit`), and a parent registered later on any of
    /// them watched too (see `register(_:as:afterAppending:file:line:)`).
    ///
    /// A parent registered on one of them before it learned of this recording is not watched by
    /// its registration, so the walk is repeated, now that they all know, until it finds no
    /// component that is not watched. A parent registered on a watched component, then, is found
    /// by the walk after it, if its registration took the lock first, or else watched by its
    /// registration, which found the recorder.
    ///
    /// The observers are added first and kept only if the recording still runs when the recorder
    /// takes note of them: a release that has already taken the recorder's list never sees them,
    /// so they are taken back here.
    static func watch(
        _ component: Component, andAncestorsExcept watched: [Component], for recorder: Recorder,
        walkingAncestorsWith walk: (Component) -> [Component] = { $0.selfAndAncestors() }
    ) {
        var watched = watched
        while true {
            let unwatched = walk(component).filter { ancestor in !watched.contains { $0 === ancestor } }
            guard !unwatched.isEmpty else { return }
            addObservers(1, for: recorder, to: unwatched)
            guard recorder.withRecord({ $0.watched += unwatched }) != nil else {
                addObservers(-1, for: recorder, to: unwatched)
                return
            }
            watched += unwatched
        }
    }

    /// How many observers watch the component's providers: traces under way, its own recording,
    /// and the recordings of its descendants. A test hook.
    package var observerCount: Int { Int(storage.attention / ComponentStorage.observer) }

    /// How many cells the component keeps now: its providers', their keys', and those of builds under
    /// way. A test hook.
    package var liveCellCount: Int { storage.withLock { $0.table.cells.count { $0.key != nil } } }

    /// The component's structure now: parents, modules, the providers its modules have seen with
    /// their strategies and cached state, and, while recording is on, which provider resolved
    /// which. Transients, which keep nothing in their module, appear only while recording.
    ///
    /// - Returns: A snapshot of the graph.
    public func dependencyGraph() -> DependencyGraph {
        let (ownTable, recording, unusedModules, inUse, parents) = storage.withLock { state in
            // Copied element by element under the lock, so that what is read after it shares no
            // storage with what other threads write under the lock. Sharing would be correct
            // (copy-on-write), but ThreadSanitizer cannot see it.
            (
                state.table.entries, state.extras?.recording.map { $0.copiedElementByElement() },
                (state.extras?.registeredModules.values).map { $0.map { type(of: $0) } } ?? [],
                storage.withDirectory { directory in directory.members(.module).map { type(of: $0.object) } },
                parentList.map { "\(type(of: $0))" }
            )
        }
        var strategies = recording?.providers ?? [:]
        var statuses: [ProviderIdentity: CacheStatus] = [:]
        // Modules in use, registered ones not used yet, and those whose cells the component keeps (a
        // module made directly for it), each type once.
        var modules = Dictionary((unusedModules + inUse).map { (ObjectIdentifier($0), "\($0)") }) { $1 }
        // The components whose providers the graph may show, each named once: this one, then the
        // ancestors that its recording watches, nearest first, ranked by the order they are named in.
        var componentNames: [UInt: String] = [:]
        for component in [self] + (recording?.watched ?? []) where componentNames[component.identity] == nil {
            let isOwn = component === self
            let identity = component.identity
            let rank = componentNames.count
            let table = isOwn ? ownTable : component.storage.withLock { $0.table.entries }
            componentNames[identity] =
                isOwn ? "`\(type(of: component))`" : "the ancestor `\(type(of: component))` \(rank)"
            for (key, cell) in table where key.keyNumber == 0 {
                let moduleType = cell.ownerType
                let provider = ProviderIdentity(component: identity, module: moduleType, key: key.provider)
                statuses[provider] = table.status(of: key)
                // The component's own modules and providers.
                guard isOwn else { continue }
                modules[ObjectIdentifier(moduleType)] = "\(moduleType)"
                strategies[provider] = strategies[provider] ?? DependencyGraph.Strategy(cell.strategy)
            }
        }
        let names = ProviderIdentity.uniqueNames(of: strategies.keys, components: componentNames)
        func name(_ provider: ProviderIdentity) -> String { names[provider, default: provider.name] }
        return DependencyGraph(
            component: "\(type(of: self))", parents: parents, modules: modules.values.sorted(),
            nodes: strategies.map { provider, strategy in
                let status = statuses[provider] ?? (false, 0, 0)
                return .init(
                    name: name(provider), strategy: strategy, isCached: status.holdsInstance,
                    builds: status.builds, waitingCallers: status.waiters)
            }.sorted { $0.name < $1.name },
            dependencies: (recording?.edges ?? []).map { .init(from: name($0.from), to: name($0.to)) }
                .sorted { ($0.from, $0.to) < ($1.from, $1.to) })
    }

    /// Runs `body` and returns what it returns with a trace of the provider calls it made into this
    /// component and its ancestors: an indented tree, one line per call, saying whether the call
    /// built a new instance or found a cached one.
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
        let trace = Trace(of: self)
        return try trace.finish(
            Trace.$current.withValue(Trace.current + [(trace, 0)]) { Result(catching: body) })
    }

    /// Runs `body`, which may await, and returns what it returns with a trace of the provider calls,
    /// async ones included, that it made into this component and its ancestors, in its task and the
    /// child tasks it starts: the async form of ``trace(_:)``.
    ///
    /// ```swift
    /// let (_, trace) = await app.trace { await app.data.database() }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor that `body` runs on; leave the default, the caller's.
    ///   - body: The resolution to trace.
    /// - Returns: `body`'s result and the trace.
    public func trace<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> (value: T, trace: String) {
        let trace = Trace(of: self)
        return try trace.finish(await Trace.$current.outcome(Trace.current + [(trace, 0)], body))
    }

    /// Adds `delta`, which may be negative, to the observers of each of `components`, for
    /// `recorder`'s recording if one is given (see `ComponentStorage.addObservers(_:for:in:)`):
    /// while one more observes them, every call of their providers, cached ones included, takes
    /// the path that observers see.
    static func addObservers(_ delta: Int, for recorder: Recorder? = nil, to components: [Component]) {
        for component in components {
            component.storage.withLock { component.storage.addObservers(delta, for: recorder, in: &$0) }
        }
    }

    /// This component and its ancestors, each once, nearest first. (Package-visible for tests.)
    ///
    /// Each component's parents are read under its lock, which a registration that appends holds,
    /// so that a registration's check for a cycle sees another's (see `register`). Each ancestor
    /// is visited once, however many paths lead to it, so a hierarchy of shared ancestors costs
    /// what its components do.
    package func selfAndAncestors() -> [Component] {
        var all: [Component] = [self]
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        var index = 0
        while index < all.count {
            let component = all[index]
            let parents = component.storage.withLock { _ in component.parentList }
            all += parents.filter { visited.insert(ObjectIdentifier($0)).inserted }
            index += 1
        }
        return all
    }
}

/// A trace under way: the tree of the calls it shows, which the tasks that its closure starts add to
/// as well.
final class Trace: Sendable {
    /// Traces, each with one of its calls: its index in the trace's calls, zero for the root.
    typealias Calls = [(trace: Trace, call: Int)]

    /// The traces under way in this task or on this thread, outermost first, each with the call that
    /// encloses the caller.
    @TaskLocal static var current: Calls = []

    /// The calls, each with its line and the calls it made, the root first; and the components whose
    /// providers' calls the trace shows, which it observes until it finishes, nil once it has: a task
    /// that outlives the trace's closure then neither keeps them alive nor adds calls.
    private let state: Locked<(calls: [(line: String, made: [Int])], observed: [Component]?)>

    /// A trace of the calls into `component` and its ancestors, which it observes until `finish(_:)`.
    init(of component: Component) {
        let observed = component.selfAndAncestors()
        state = .make(([("", [])], observed))
        Component.addObservers(1, to: observed)
    }

    /// Ends the trace, whether its closure returned or threw: takes its observers back; returns what
    /// `outcome` holds, with the trace's text, one line per call, each under the call that made it.
    func finish<T, Failure>(_ outcome: Result<T, Failure>) throws(Failure) -> (value: T, trace: String) {
        let (calls, observed) = state.withLock { ($0.calls, $0.observed.take() ?? []) }
        Component.addObservers(-1, to: observed)
        func text(_ call: Int, _ depth: Int) -> [String] {
            calls[call].made.flatMap {
                [String(repeating: "  ", count: depth) + calls[$0].line + "\n"] + text($0, depth + 1)
            }
        }
        return (try outcome.get(), text(0, 0).joined())
    }

    /// Adds the call whose step is `step`, into the component whose identity is `component`, to each
    /// trace under way that shows it, under the call that encloses it there; returns the traces for
    /// the calls that it makes, and the calls added, for `end(_:isNew:)`.
    static func begin(_ step: Step, in component: UInt) -> (inner: Calls, added: Calls) {
        let line = current.isEmpty ? "" : "\(step.name) [\(step.strategy.name)] "
        let added = current.compactMap { $0.trace.add(line, in: component, under: $0.call) }
        return (current.map { entry in added.last { $0.trace === entry.trace } ?? entry }, added)
    }

    /// Adds a call into `component` whose line begins with `line` under the call `enclosing`, if the
    /// trace shows the component's calls and has not finished.
    private func add(_ line: String, in component: UInt, under enclosing: Int) -> (trace: Trace, call: Int)? {
        state.withLock { state in
            guard state.observed?.contains(where: { $0.identity == component }) == true else { return nil }
            state.calls[enclosing].made.append(state.calls.count)
            state.calls.append((line, []))
            return (self, state.calls.count - 1)
        }
    }

    /// Ends the calls that `begin(_:in:)` added: each says whether it built a new instance.
    static func end(_ added: Calls, isNew: Bool) {
        for (trace, call) in added {
            trace.state.withLock { $0.calls[call].line += isNew ? "new" : "cached" }
        }
    }
}

/// A recording component, as the components it watches and the provider calls it observes know it:
/// its storage, as a module holds it, without keeping it alive, so that no component is released by
/// them, in the middle of a resolution, and no cycle forms through a watched ancestor. A recording
/// component whose release has begun records nothing more (see `ComponentStorage.withRecord`).
typealias Recorder = ComponentStorage

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
    var watched: [Component] = []
    /// The recording component's address, compared only.
    let component: UInt

    /// A copy that shares no storage with this record.
    func copiedElementByElement() -> DependencyRecord {
        DependencyRecord(
            providers: Dictionary(uniqueKeysWithValues: providers.map { ($0.key, $0.value) }),
            edges: Set(edges.map { $0 }), watched: watched.map { $0 }, component: component)
    }

    /// Records that `requester` called `provider`, of `strategy`, if the recording watches the
    /// called provider's component (its own, or an ancestor); returns whether it does.
    mutating func recordCall(
        of provider: ProviderIdentity, strategy: DependencyGraph.Strategy, by requester: ProviderIdentity
    ) -> Bool {
        guard ([component] + watched.map(\.identity)).contains(provider.component) else { return false }
        providers[provider] = strategy
        edges.insert(Edge(from: requester, to: provider))
        return true
    }
}

/// The observed async call under way in this task, whose factory makes the calls it observes, and
/// the index its step has, or will have, on its agent's stack.
struct ObservedAsyncCall: @unchecked Sendable {
    // Immutable.
    @TaskLocal static var current: ObservedAsyncCall?

    let call: ObservedCall
    let agent: TaskAgent
    let stepIndex: Int

    /// The call, if it makes a call made now directly (see `TaskAgent.isCalledDirectly`).
    static var requester: ObservedCall? {
        current.flatMap { TaskAgent.isCalledDirectly(byStepAt: $0.stepIndex, of: $0.agent) ? $0.call : nil }
    }
}

extension AnyModule {
    /// Tells the observers of a call of `step`'s provider, which `requester` made directly, if
    /// any: each recording component that the call is made for gets the provider and the edge from
    /// `requester`, and a trace under way in this task or on this thread that shows this component
    /// gets a line (`added`, in the traces the call runs under).
    ///
    /// A call is made for its own component, if that records, and for every component that the
    /// observed call that asked for it directly was made for: a recording child sees its providers'
    /// calls into its ancestors, and theirs, but not a call that a provider nobody observes made in
    /// between, which would show an edge that no provider made.
    func beginObserving(_ step: Step, requester: ObservedCall?) -> Observation {
        let provider = ProviderIdentity(
            component: storage.address, module: step.subject,
            key: ProviderKey(site: step.site, type: step.type))
        let strategy = DependencyGraph.Strategy(step.strategy)
        // The requester's recorders that watch this call's component (their own, or an ancestor): a
        // call into an unrelated component that something else observes is no part of their graphs,
        // and its component, which they do not keep, could go and its identity be reused.
        var recorders = (requester?.recorders ?? []).filter { recorder in
            (recorder as? Recorder)?.withRecord {
                $0.recordCall(of: provider, strategy: strategy, by: requester!.provider)
            } ?? false
        }
        // Its own recording, if it records: a component whose release has begun records nothing.
        let records = storage.withRecord { $0.providers[provider] = strategy } != nil
        if records, !recorders.contains(where: { $0 === storage }) { recorders.append(storage) }
        let (traces, added) = Trace.begin(step, in: storage.address)
        return Observation(call: (provider, recorders), traces: traces, added: added)
    }

}

/// A provider call that observers see, begun (`AnyModule.beginObserving`): the call, which the calls
/// its factory makes directly name as their requester; the traces it runs under; and those of them
/// that show it (`added`), which it ends when it returns (`Trace.end`).
struct Observation {
    let call: ObservedCall
    let traces: Trace.Calls
    let added: Trace.Calls
}

extension ResolutionContext {
    /// The observed call that makes a call made now on this thread directly, if any: the thread's
    /// innermost, or, for a call that async code makes, the task's.
    var observedRequester: ObservedCall? {
        observedCalls.last.map { last in
            isCalledDirectly(byStepAt: last.stepIndex, inResolution: last.resolution) ? last.call : nil
        } ?? (depth == 0 ? ObservedAsyncCall.requester : nil)
    }
}

extension ComponentStorage {
    /// Whether anyone observes the component's providers: a trace, a recording, or an override being
    /// set up.
    var isObserved: Bool { attention >= Self.observer }

    /// What `body` returns for the record of the component's recording, under its lock, read through
    /// its state, not a copy (a copy would make the writes copy the record's tables); nil once its
    /// release has begun.
    func withRecord<Result>(_ body: (inout DependencyRecord) -> Result) -> Result? {
        withLock { state in state.extras?.recording == nil ? nil : body(&state.extras!.recording!) }
    }

    /// Adds `delta`, which may be negative, to the component's observers; call it holding the lock,
    /// with the state it guards. An observer for `recorder`'s recording also adds the recorder to
    /// those that a parent registered later learns of, and taking it back takes the recorder back.
    func addObservers(_ delta: Int, for recorder: Recorder?, in state: inout ComponentState) {
        addAttention(delta * Int(Self.observer))
        if let recorder, delta > 0 {
            state.withExtras { $0.recorders.append(recorder) }
        } else if let recorder, let index = state.extras?.recorders.firstIndex(where: { $0 === recorder }) {
            state.extras!.recorders.remove(at: index)
        }
    }
}

/// What a provider's cells hold at one moment, for insight.
typealias CacheStatus = (holdsInstance: Bool, builds: Int, waiters: Int)

extension [(key: CellKey, cell: OnceStateMachine)] {
    /// What the cells of the provider whose cell key is `key` hold: its own, and its keys'.
    func status(of key: CellKey) -> CacheStatus {
        let cells = filter { $0.key.owner == key.owner && $0.key.provider == key.provider }.map(\.cell)
        let waiters = cells.reduce(0) { $0 + $1.waiterCount }
        return (cells.contains { $0.hasValue }, cells.count { $0.isBuilding }, waiters)
    }
}
