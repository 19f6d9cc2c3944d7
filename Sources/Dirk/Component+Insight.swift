import Synchronization

/// A component's structure: its parents and modules, the providers seen so far with their
/// strategies and whether they hold a cached instance, and which provider resolved which.
///
/// Get one from `Component.dependencyGraph()`, and render it with `graphviz` or `mermaid`.
public struct DependencyGraph: Sendable {
    /// One provider: `Module.provider()`, the strategy it uses, and whether it caches an instance
    /// now.
    public struct Provider: Sendable, Hashable {
        /// `Module.provider()`.
        public let name: String
        /// `single`, `transient`, `weak`, `scoped`, `single(key:)` or `async single`.
        public let strategy: String
        /// Whether the provider holds a cached instance now.
        public let isCached: Bool

        /// A provider as a graph lists it, for comparing with one in tests.
        public init(name: String, strategy: String, isCached: Bool) {
            self.name = name
            self.strategy = strategy
            self.isCached = isCached
        }
    }

    /// One provider's factory resolving another provider.
    public struct Dependency: Sendable, Hashable {
        /// The provider whose factory made the call.
        public let from: String
        /// The provider it called.
        public let to: String

        /// A dependency as a graph lists it, for comparing with one in tests.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The component's type.
    public let component: String
    /// The types of its direct parents, in the order they were registered.
    public let parents: [String]
    /// The types of its modules.
    public let modules: [String]
    /// The providers seen so far, by name.
    public let providers: [Provider]
    /// The dependencies recorded since `recordingDependencies()`, by name.
    public let dependencies: [Dependency]

    /// The graph in Graphviz's DOT language: `dot -Tsvg graph.dot > graph.svg` draws it.
    public var graphviz: String {
        var lines = ["digraph \"\(component)\" {", "    rankdir=LR;", "    node [shape=box];"]
        for provider in providers {
            let fill = provider.isCached ? ", style=filled, fillcolor=\"#dfeede\"" : ""
            lines.append(
                "    \"\(provider.name)\" [label=\"\(provider.name)\\n\(provider.strategy)\"\(fill)];")
        }
        for dependency in dependencies {
            lines.append("    \"\(dependency.from)\" -> \"\(dependency.to)\";")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as a Mermaid flowchart, which GitHub and many editors draw in Markdown.
    public var mermaid: String {
        let names = providers.map(\.name) + dependencies.flatMap { [$0.from, $0.to] }
        var identifiers: [String: String] = [:]
        for name in names where identifiers[name] == nil { identifiers[name] = "p\(identifiers.count)" }
        var lines = ["flowchart LR"]
        for provider in providers {
            let cached = provider.isCached ? ", cached" : ""
            lines.append(
                "    \(identifiers[provider.name]!)[\"\(provider.name)<br/>\(provider.strategy)\(cached)\"]")
        }
        for dependency in dependencies {
            lines.append("    \(identifiers[dependency.from]!) --> \(identifiers[dependency.to]!)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Component {
    /// Starts recording which provider resolves which, in this component, for
    /// `dependencyGraph()`.
    ///
    /// Recording costs a lock for each provider call of the component, so turn it on where you
    /// look at the graph: in a debug build, a test, or a tool that draws it.
    ///
    /// - Returns: This component, for chaining.
    @discardableResult
    public func recordingDependencies() -> Self {
        withStateLock { state in
            guard state.graph == nil else { return }
            state.graph = DependencyRecord()
            state.forEachModule { $0.addObservers(1) }
        }
        return self
    }

    /// The component's structure now: parents, modules, the providers its modules have seen with
    /// their strategies and cached state, and, while `recordingDependencies()` is on, which
    /// provider resolved which.
    public func dependencyGraph() -> DependencyGraph {
        withStateLock { state in
            var strategies = state.graph?.providers ?? [:]
            var cached: Set<String> = []
            var modules: [String] = []
            state.forEachModule { module in
                modules.append("\(type(of: module))")
                module.slots.forEachValue { value in
                    let slot = unsafeDowncast(value, to: ProviderSlot.self)
                    strategies[slot.name] = strategies[slot.name] ?? slot.strategyName
                    if slot.isCaching { cached.insert(slot.name) }
                }
            }
            return DependencyGraph(
                component: "\(type(of: self))",
                parents: parents.all.map { "\(type(of: $0.component))" },
                modules: modules.reversed(),
                providers: strategies.keys.sorted().map {
                    .init(name: $0, strategy: strategies[$0]!, isCached: cached.contains($0))
                },
                dependencies: (state.graph?.edges ?? []).map { .init(from: $0.from, to: $0.to) }
                    .sorted { ($0.from, $0.to) < ($1.from, $1.to) })
        }
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
    public func trace<T>(_ body: () throws -> T) rethrows -> (value: T, trace: String) {
        let components = ancestorsAndSelf()
        for component in components {
            component.withStateLock { state in
                state.tracers += 1
                state.forEachModule { $0.addObservers(1) }
            }
        }
        let context = ResolutionContext.current.takeUnretainedValue()
        let outer = context.traceLines
        context.traceLines = []
        defer {
            context.traceLines = outer
            for component in components {
                component.withStateLock { state in
                    state.tracers -= 1
                    state.forEachModule { $0.addObservers(-1) }
                }
            }
        }
        let value = try body()
        let lines = context.traceLines ?? []
        return (value, lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"))
    }

    /// This component and its ancestors, each once.
    private func ancestorsAndSelf() -> [Component] {
        var all: [Component] = [self]
        var index = 0
        while index < all.count {
            for parent in all[index].parents.all
            where !all.contains(where: { $0 === parent.component }) {
                all.append(parent.component)
            }
            index += 1
        }
        return all
    }
}

extension ProviderSlot {
    /// The strategy the provider uses, as graphs show it.
    var strategyName: String {
        if isKeyed { return "single(key:)" }
        if asyncCell != nil { return "async single" }
        switch cell?.retention {
        case .strong: return "single"
        case .weak: return "weak"
        case nil: return "scoped"
        }
    }

    /// Whether the provider caches an instance now. Call it while holding the component's lock.
    var isCaching: Bool {
        (cell?.hasValue ?? false) || (asyncCell?.hasValue ?? false) || hasKeyedValues
    }
}
