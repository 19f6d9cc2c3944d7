/// A component's structure: its parents and modules, the providers seen so far with their
/// strategies and whether they hold a cached instance, and which provider resolved which.
///
/// Get one from ``Component/dependencyGraph()``, and render it with ``graphviz`` or ``mermaid``.
public struct DependencyGraph: Sendable {
    /// How a provider caches its instances: its strategy, and whether its factory awaits.
    ///
    /// A value that can grow: compare it with the strategies below (`node.strategy == .single`), read
    /// ``isAsync``, or print it. A `switch` over it needs a `default`, so a strategy that a later
    /// release adds breaks no code.
    public struct Strategy: Sendable, Hashable, CustomStringConvertible {
        /// The strategy as a provider calls it: `single`, `single(key:)`, `weak`, `scoped`,
        /// `transient`.
        public let name: String
        /// Whether the provider's factory awaits.
        public let isAsync: Bool

        /// `single`: one instance per component.
        public static let single = Strategy(name: "single", isAsync: false)
        /// `single(key:)`: one instance per component per key.
        public static let keyedSingle = Strategy(name: "single(key:)", isAsync: false)
        /// `weak`: one instance while someone holds it.
        public static let weak = Strategy(name: "weak", isAsync: false)
        /// `scoped`: one instance per resolution.
        public static let scoped = Strategy(name: "scoped", isAsync: false)
        /// `transient`: a new instance per call.
        public static let transient = Strategy(name: "transient", isAsync: false)

        /// The same strategy with a factory that awaits: `.single.async`.
        public var async: Strategy { Strategy(name: name, isAsync: true) }

        /// `single` with an async factory: `.single.async`.
        @available(*, deprecated, renamed: "single.async")
        public static var asyncSingle: Strategy { single.async }
        /// `transient` with an async factory: `.transient.async`.
        @available(*, deprecated, renamed: "transient.async")
        public static var asyncTransient: Strategy { transient.async }
        /// `scoped` with an async factory: `.scoped.async`.
        @available(*, deprecated, renamed: "scoped.async")
        public static var asyncScoped: Strategy { scoped.async }

        /// The strategy as Dirk's traces and messages write it: `single`, `single(key:)`,
        /// `async single`.
        public var description: String { isAsync ? "async \(name)" : name }
    }

    /// One provider: `Module.provider()`, the strategy it uses, and whether it caches an instance
    /// now.
    public struct Node: Sendable, Hashable {
        /// `Module.provider()`; where two providers of the graph share that, such as a provider that
        /// wraps `super`'s, the place of its strategy call too (`Module.provider() at
        /// App/Modules.swift:12`), and for a generic provider its return type.
        public let name: String
        /// How the provider caches its instances.
        public let strategy: Strategy
        /// Whether the provider holds a cached instance now.
        public let isCached: Bool
        /// How many of the provider's instances are being built now: one at most, or one per key
        /// for `single(key:)`.
        public let builds: Int
        /// How many callers wait for those builds, threads and tasks alike.
        public let waitingCallers: Int

        /// A provider as a graph lists it, for comparing with one in tests.
        ///
        /// - Parameters:
        ///   - name: `Module.provider()`.
        ///   - strategy: How the provider caches its instances.
        ///   - isCached: Whether the provider holds a cached instance now.
        ///   - builds: How many of its instances are being built now.
        ///   - waitingCallers: How many callers wait for those builds.
        public init(
            name: String, strategy: Strategy, isCached: Bool, builds: Int = 0, waitingCallers: Int = 0
        ) {
            self.name = name
            self.strategy = strategy
            self.isCached = isCached
            self.builds = builds
            self.waitingCallers = waitingCallers
        }
    }

    /// One provider's factory resolving another provider.
    public struct Dependency: Sendable, Hashable {
        /// The provider whose factory made the call.
        public let from: String
        /// The provider it called.
        public let to: String

        /// A dependency as a graph lists it, for comparing with one in tests.
        ///
        /// - Parameters:
        ///   - from: The provider whose factory made the call.
        ///   - to: The provider it called.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The component's type.
    public let component: String
    /// The types of its direct parents, in the order they were registered.
    public let parents: [String]
    /// The types of its modules, sorted: those in use, those registered, and those made for it
    /// directly (`FakeModule(component)`) once one of their providers kept something.
    public let modules: [String]
    /// The providers seen so far, one node each, by name: those that keep instances or a cell in
    /// their component (every strategy but `transient`) called since the component was made, and every
    /// provider recorded, transients and the ancestors' providers that the component's providers
    /// used included. A `transient` keeps nothing, so only recording sees it.
    public let nodes: [Node]
    /// The dependencies recorded since ``Component/startRecordingDependencies()``, by name.
    public let dependencies: [Dependency]

    /// The graph in Graphviz's DOT language: `dot -Tsvg graph.dot > graph.svg` draws it.
    public var graphviz: String {
        var lines = ["digraph \"\(component)\" {", "    rankdir=LR;", "    node [shape=box];"]
        for node in nodes {
            let fill = node.isCached ? ", style=filled, fillcolor=\"#dfeede\"" : ""
            lines.append("    \"\(node.name)\" [label=\"\(node.name)\\n\(node.strategy)\"\(fill)];")
        }
        lines += dependencies.map { "    \"\($0.from)\" -> \"\($0.to)\";" } + ["}"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as a Mermaid flowchart, which GitHub and many editors draw in Markdown.
    public var mermaid: String {
        let names = nodes.map(\.name) + dependencies.flatMap { [$0.from, $0.to] }
        var identifiers: [String: String] = [:]
        for name in names where identifiers[name] == nil { identifiers[name] = "p\(identifiers.count)" }
        var lines = ["flowchart LR"]
        for node in nodes {
            let cached = node.isCached ? ", cached" : ""
            lines.append("    \(identifiers[node.name]!)[\"\(node.name)<br/>\(node.strategy)\(cached)\"]")
        }
        lines += dependencies.map { "    \(identifiers[$0.from]!) --> \(identifiers[$0.to]!)" }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension DependencyGraph.Strategy {
    /// The strategy that Dirk writes as it writes `strategy`, a provider's.
    init(_ strategy: ProviderStrategy) {
        // An async strategy's name without its "async " prefix.
        self.init(name: String(strategy.name.dropFirst(strategy.isAsync ? 6 : 0)), isAsync: strategy.isAsync)
    }
}
