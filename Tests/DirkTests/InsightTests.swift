import Dirk
import DirkTestSupport
import Testing

@Suite("Graph insight")
struct InsightTests {
    @Test("a component reports its parents, modules, providers, strategies and cached state")
    func structure() {
        let app = RootComponent()
        let feature = LeafComponent().parent(app)
        _ = feature.leaf.viewModel()
        let graph = app.dependencyGraph()
        #expect(graph.component == "RootComponent")
        #expect(graph.modules == ["RootModule"])
        #expect(graph.nodes == [.init(name: "RootModule.store()", strategy: .single, isCached: true)])
        #expect(feature.dependencyGraph().parents == ["RootComponent"])
        app.reset()
        #expect(app.dependencyGraph().nodes.first?.isCached == false)
    }

    @Test("while recording, the graph shows which provider resolved which, and renders as DOT and Mermaid")
    func recordedDependencies() {
        let component = ScopedComponent().startRecordingDependencies()
        _ = component.scopes.pair()
        let graph = component.dependencyGraph()
        #expect(graph.dependencies.contains(.init(from: "ScopeModule.pair()", to: "ScopeModule.context()")))
        #expect(graph.dependencies.contains(.init(from: "ScopeModule.nested()", to: "ScopeModule.context()")))
        #expect(
            graph.nodes.contains(
                .init(name: "ScopeModule.pair()", strategy: .transient, isCached: false)))
        #expect(graph.graphviz.contains("\"ScopeModule.pair()\" -> \"ScopeModule.nested()\";"))
        #expect(graph.mermaid.hasPrefix("flowchart LR"))
        #expect(graph.mermaid.contains("-->"))
    }

    @Test("a provider that calls super's provider, and overloads by return type, are nodes of their own")
    func providersThatShareANameAreApart() {
        let app = GraphAppComponent().module { GraphFakeDataModule($0) }.startRecordingDependencies()
        _ = app.data.store()
        _ = app.data.value() as Thing
        _ = app.data.value() as Other
        let graph = app.dependencyGraph()
        let names = graph.nodes.map(\.name)
        #expect(Set(names).count == names.count, "one name per node: \(names)")
        let stores = names.filter {
            $0.hasPrefix("GraphFakeDataModule.store() at DirkTests/InsightTests.swift:")
        }
        let values = names.filter {
            $0.hasPrefix("GraphFakeDataModule.value() at DirkTests/InsightTests.swift:")
        }
        #expect(stores.count == 2)
        #expect(values.count == 2)
        #expect(!graph.dependencies.contains { $0.from == $0.to }, "no provider depends on itself")
        #expect(graph.dependencies.count == 2)
        #expect(graph.dependencies.contains { stores.contains($0.from) && stores.contains($0.to) })
        #expect(graph.dependencies.contains { $0.to == "GraphFakeDataModule.client()" })
    }

    @Test("two providers on one line that differ only by column are nodes of their own, named by column")
    func providersThatShareALine() throws {
        let app = GraphAppComponent().startRecordingDependencies()
        let first = app.data.either(true)
        #expect(first !== app.data.either(false))
        let names = app.dependencyGraph().nodes.map(\.name).filter {
            $0.hasPrefix("GraphDataModule.either(_:)")
        }
        #expect(names.count == 2)
        #expect(Set(names).count == 2, "one name per node: \(names)")
        let prefix = "GraphDataModule.either(_:) -> Thing at DirkTests/InsightTests.swift:"
        let columns = try names.map { name in
            let position = try #require(name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : nil)
            return try #require(position.split(separator: ":").last.flatMap { Int($0) })
        }
        #expect(Set(columns).count == 2, "the columns of the calls: \(names)")
    }

    @Test("a recording child shows its providers' calls into its ancestors, and theirs, whichever records")
    func childRecordsItsAncestors() {
        let app = GraphAppComponent()
        let session = GraphSessionComponent().parent(app).startRecordingDependencies()
        let later = GraphSessionComponent().startRecordingDependencies().parent(app)
        for child in [session, later] {
            _ = child.session.cart()
            let graph = child.dependencyGraph()
            #expect(
                Set(graph.dependencies) == [
                    .init(from: "GraphSessionModule.cart()", to: "GraphDataModule.store()"),
                    .init(from: "GraphDataModule.store()", to: "GraphDataModule.client()"),
                ])
            #expect(
                graph.nodes.contains(
                    .init(name: "GraphDataModule.store()", strategy: .single, isCached: true)))
            #expect(graph.modules == ["GraphSessionModule"])
            app.reset()
        }
        #expect(app.dependencyGraph().dependencies.isEmpty, "the parent itself records nothing")
    }

    @Test("a grandparent registered on the parent after the child started recording is watched too")
    func laterGrandparentIsWatched() {
        let middle = GraphSessionComponent()
        weak var released: GraphLeafComponent?
        let app = GraphAppComponent()
        do {
            let leaf = GraphLeafComponent().parent(middle).startRecordingDependencies()
            released = leaf
            _ = middle.parent(app)
            #expect(app.observerCount == 1)
            _ = leaf.leaf.screen()
            #expect(
                Set(leaf.dependencyGraph().dependencies) == [
                    .init(from: "GraphLeafModule.screen()", to: "GraphSessionModule.cart()"),
                    .init(from: "GraphSessionModule.cart()", to: "GraphDataModule.store()"),
                    .init(from: "GraphDataModule.store()", to: "GraphDataModule.client()"),
                ])
        }
        #expect(released == nil)
        #expect(app.observerCount == 0)
        #expect(middle.observerCount == 0)
    }

    @Test("ancestors registered while a recording starts are all watched, however late in the chain")
    func ancestorsRegisteredWhileRecordingStartsAreWatched() {
        // Each of the recording's first three walks is followed, before the recording watches
        // what it found, by a parent registered on the topmost ancestor: as another thread could
        // do. That registration finds no recorder there yet, so it does not watch its parent
        // itself; the recording must walk again until it finds nothing new.
        let top = GraphTreeComponent(isRoot: false)
        let added = (0..<3).map { _ in GraphTreeComponent(isRoot: false) }
        weak var releasedLeaf: GraphLeafComponent?
        do {
            let leaf = GraphLeafComponent().parent(
                GraphSessionComponent().parent(top, as: GraphTreeComponent.self))
            releasedLeaf = leaf
            var walks = 0
            leaf.startRecordingDependencies(walkingAncestorsWith: { component in
                let found = component.selfAndAncestors()
                if walks < added.count {
                    (found.last as! GraphTreeComponent).parent(added[walks])
                }
                walks += 1
                return found
            })
            // Three walks followed by a registration, one that finds the last parent, one that
            // finds nothing new.
            #expect(walks == 5)
            let unwatched = added.indices.filter { added[$0].observerCount == 0 }
            #expect(unwatched.isEmpty, "ancestors that the recording does not watch: \(unwatched)")
            #expect(top.observerCount == 1)
        }
        #expect(releasedLeaf == nil)
        #expect(
            ([top] + added).allSatisfy { $0.observerCount == 0 },
            "the leaf's release takes every observer back")
    }

    @Test("a component nested in one of its own type: its provider and its ancestor's are two nodes")
    func nestedComponentsOfOneType() {
        let root = GraphTreeComponent(isRoot: true)
        let child = GraphTreeComponent(isRoot: false).parent(root).startRecordingDependencies()
        _ = child.tree.node()
        root.reset()
        let graph = child.dependencyGraph()
        #expect(graph.nodes.count == 2)
        #expect(Set(graph.nodes.map(\.name)).count == 2)
        #expect(graph.dependencies.count == 1)
        #expect(!graph.dependencies.contains { $0.from == $0.to }, "no provider depends on itself")
        #expect(graph.nodes.filter(\.isCached).count == 1, "the child's instance, not the reset root's")
        #expect(
            graph.nodes.contains {
                $0.name.hasSuffix("in the ancestor `GraphTreeComponent` 1") && !$0.isCached
            })
    }

    @Test("a recording records no call into an unrelated component, even one that something else observes")
    func unrelatedComponentIsNotRecorded() {
        let other = GraphAppComponent().startRecordingDependencies()
        let session = GraphSessionComponent().parent(GraphAppComponent()).startRecordingDependencies()
        _ = session.session.reaches(other)
        let graph = session.dependencyGraph()
        #expect(graph.dependencies.isEmpty, "\(graph.dependencies)")
        #expect(graph.nodes.map(\.name) == ["GraphSessionModule.reaches(_:)"])
        #expect(other.dependencyGraph().dependencies.count == 1, "the other component records its own")
    }

    @Test(
        "a recording draws no edge through a provider that nobody observes, which would show a call no provider made"
    )
    func noEdgeThroughAnUnobservedProvider() {
        let other = GraphAppComponent()
        let session = GraphSessionComponent().parent(GraphAppComponent()).startRecordingDependencies()
        // `roundTrip` calls `relay` of `other`, which nothing observes, and `relay` calls back into
        // `cart`, which calls `store` of the session's parent.
        _ = session.session.roundTrip(other)
        let graph = session.dependencyGraph()
        #expect(
            graph.dependencies.map { "\($0.from) -> \($0.to)" }
                == [
                    "GraphSessionModule.cart() -> GraphDataModule.store()",
                    "GraphDataModule.store() -> GraphDataModule.client()",
                ].sorted(), "\(graph.dependencies)")
        #expect(graph.nodes.contains { $0.name == "GraphSessionModule.roundTrip(_:)" })
        #expect(graph.nodes.contains { $0.name == "GraphSessionModule.cart()" })
    }

    @Test("a handle resolved by a deinitializer at a resolution's end draws no edge from its outermost call")
    func noEdgeFromADeinitializerAtTheEnd() {
        let app = GraphEndComponent().startRecordingDependencies()
        // `root()` uses a `scoped` request, whose deinitializer, run as the resolution ends, reads a
        // handle to `metrics()`.
        _ = app.m.root()
        let edges = app.dependencyGraph().dependencies.map { "\($0.from) -> \($0.to)" }
        #expect(edges == ["GraphEndModule.root() -> GraphEndModule.request()"], "\(edges)")
    }

    @Test("a call that a key's hashing makes is no call of the keyed provider's caller")
    func noEdgeFromTheCallerOfAKeyThatCallsAProvider() {
        let app = GraphEndComponent().startRecordingDependencies()
        _ = app.m.keyedCaller()
        let edges = app.dependencyGraph().dependencies.map { "\($0.from) -> \($0.to)" }
        #expect(!edges.contains("GraphEndModule.keyedCaller() -> GraphEndModule.hashSeed()"), "\(edges)")
        #expect(edges.contains("GraphEndModule.keyedCaller() -> GraphEndModule.keyed(_:)"), "\(edges)")
    }

    @Test(
        "the graph of a recording component can be read while other threads resolve, reset, trace, and record in children"
    )
    func graphReadWhileRecording() {
        let app = GraphAppComponent().startRecordingDependencies()
        _ = app.data.store()
        let checks = OffThreadChecks()
        withWatchdog {
            let rounds = stressRounds(1200)
            onThreads(4) { index in
                for round in 0..<rounds {
                    switch index {
                    case 0:
                        let names = app.dependencyGraph().nodes.map(\.name)
                        checks.check(
                            names.contains("GraphDataModule.client()"), "a recorded provider went missing")
                    case 1:
                        _ = app.data.store()
                        _ = app.data.value() as Thing
                        if round % 16 == 0 { app.reset() }
                    case 2:
                        let session = GraphSessionComponent().parent(app).startRecordingDependencies()
                        _ = session.session.cart()
                        checks.check(
                            session.dependencyGraph().dependencies.contains(
                                .init(from: "GraphSessionModule.cart()", to: "GraphDataModule.store()")),
                            "a child's call into its parent went unrecorded")
                    default:
                        let (_, trace) = app.trace { app.data.store() }
                        checks.check(
                            trace.hasPrefix("GraphDataModule.store() [single]"), "a trace missed its call")
                    }
                }
            }
        }
        checks.expectNone()
        #expect(
            app.dependencyGraph().dependencies.contains(
                .init(from: "GraphDataModule.store()", to: "GraphDataModule.client()")))
    }

    @Test("a recording child watches its ancestors until it is released")
    func releasedChildStopsWatching() {
        let app = GraphAppComponent()
        let middle = GraphSessionComponent().parent(app)
        weak var released: GraphSessionComponent?
        do {
            let session = GraphSessionComponent().parent(middle).startRecordingDependencies()
            let later = GraphSessionComponent().startRecordingDependencies().parent(middle)
            released = session
            #expect(app.observerCount == 2)
            #expect(middle.observerCount == 2)
            _ = (session, later)
        }
        #expect(released == nil)
        #expect(app.observerCount == 0)
        #expect(middle.observerCount == 0)
    }

    @Test("a trace shows the resolution as an indented tree of new and cached instances")
    func traceShowsTheTree() {
        let app = RootComponent()
        let feature = LeafComponent().parent(app)
        _ = app.root.store()
        let (_, trace) = feature.trace { feature.leaf.viewModel() }
        #expect(trace == "LeafModule.viewModel() [transient] new\n  RootModule.store() [single] cached\n")
        let (_, untraced) = feature.trace { 0 }
        #expect(untraced.isEmpty)
    }

    @Test("a trace begun inside another's closure shows its calls, and the outer trace shows them too")
    func nestedTraces() {
        let app = RootComponent()
        let feature = LeafComponent().parent(app)
        _ = app.root.store()
        let (inner, outer) = feature.trace {
            _ = feature.leaf.viewModel()
            return app.trace { feature.leaf.viewModel() }.trace
        }
        #expect(
            inner == "RootModule.store() [single] cached\n", "the inner trace shows its own component's calls"
        )
        #expect(
            outer == "LeafModule.viewModel() [transient] new\n  RootModule.store() [single] cached\n"
                + "LeafModule.viewModel() [transient] new\n  RootModule.store() [single] cached\n")
    }

    @Test("a trace shows only calls into its component and its ancestors, even where something else observes")
    func traceLeavesOutOtherComponents() {
        let other = GraphAppComponent().startRecordingDependencies()
        let session = GraphSessionComponent().parent(GraphAppComponent())
        let (_, trace) = session.trace { session.session.reaches(other) }
        #expect(trace == "GraphSessionModule.reaches(_:) [transient] new\n")
        #expect(other.dependencyGraph().dependencies.count == 1, "the other component records its own calls")
    }

    @Test("a trace begun inside an observed provider's factory starts at its own first call")
    func traceInsideAnObservedProvider() {
        let app = GraphAppComponent().startRecordingDependencies()
        let traced = app.data.tracing()
        #expect(traced.trace == "GraphDataModule.client() [single] new\n")
    }
}

// MARK: Fixtures

final class GraphAppComponent: Component, @unchecked Sendable {
    var data: GraphDataModule { module() }
}

class GraphDataModule: Module<GraphAppComponent> {
    func client() -> Thing { single { Thing() } }
    func store() -> Thing {
        single { c in
            let store = Thing()
            store.link = c.data.client()
            return store
        }
    }
    func value() -> Thing { transient { Thing() } }
    func value() -> Other { transient { Other() } }
    /// Calls `back`, a call into another component, from a factory of this one.
    func relay(_ back: () -> Thing) -> Thing {
        transient { _ in
            let relay = Thing()
            relay.link = back()
            return relay
        }
    }
    /// Traces, inside its own factory, the first call of `client()`, and keeps the trace.
    func tracing() -> TracedThing { single { c in TracedThing(trace: c.trace { c.data.client() }.trace) } }
    /// Two providers of one method, on one line, that differ only by column.
    func either(_ first: Bool) -> Thing { first ? single { Thing() } : single { Thing() } }
}

/// A request whose deinitializer resolves a handle, as a request that reports metrics when it ends.
final class GraphEndRequest: @unchecked Sendable {
    let metrics: Lazy<Thing>
    init(metrics: Lazy<Thing>) { self.metrics = metrics }
    deinit { _ = metrics.value }
}

/// A key whose hashing calls a provider. (Unowned: the component keeps its keys, and a key that
/// kept the component would keep both forever.)
struct GraphHashingKey: Hashable, @unchecked Sendable {
    unowned let app: GraphEndComponent
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(app.m.hashSeed())) }
    static func == (lhs: Self, rhs: Self) -> Bool { true }
}

final class GraphEndComponent: Component, @unchecked Sendable {
    var m: GraphEndModule { module() }
}

final class GraphEndModule: Module<GraphEndComponent> {
    func root() -> Thing {
        single { c in
            _ = c.m.request()
            return Thing()
        }
    }
    func request() -> GraphEndRequest {
        scoped { c in GraphEndRequest(metrics: c.lazy { $0.m.metrics() }) }
    }
    func metrics() -> Thing { single { Thing() } }
    func hashSeed() -> Thing { single { Thing() } }
    func keyed(_ key: GraphHashingKey) -> Thing { single(key: key) { Thing() } }
    func keyedCaller() -> Thing { transient { c in c.m.keyed(GraphHashingKey(app: c)) } }
}

/// What `GraphDataModule.tracing()` traced.
final class TracedThing: Sendable {
    let trace: String
    init(trace: String) { self.trace = trace }
}

/// A fake whose provider wraps the real one's.
final class GraphFakeDataModule: GraphDataModule {
    override func store() -> Thing {
        single { _ in
            let wrapper = Thing()
            wrapper.link = super.store()
            return wrapper
        }
    }
}

final class GraphSessionComponent: Component, @unchecked Sendable {
    var app: GraphAppComponent { parent() }
    var session: GraphSessionModule { module() }
}

final class GraphSessionModule: Module<GraphSessionComponent> {
    /// Resolves a provider of `other`, a component that is not one of this one's ancestors.
    func reaches(_ other: GraphAppComponent) -> Thing {
        transient { _ in
            let thing = Thing()
            thing.link = other.data.store()
            return thing
        }
    }

    /// Calls `relay` of `other`, which calls this component's `cart()` back.
    func roundTrip(_ other: GraphAppComponent) -> Thing {
        transient { c in
            let trip = Thing()
            trip.link = other.data.relay { c.session.cart() }
            return trip
        }
    }

    func cart() -> Thing {
        transient { c in
            let cart = Thing()
            cart.link = c.app.data.store()
            return cart
        }
    }
}

final class GraphLeafComponent: Component, @unchecked Sendable {
    var session: GraphSessionComponent { parent() }
    var leaf: GraphLeafModule { module() }
}

final class GraphLeafModule: Module<GraphLeafComponent> {
    func screen() -> Thing {
        transient { c in
            let screen = Thing()
            screen.link = c.session.session.cart()
            return screen
        }
    }
}

/// A component whose instances nest, as screens inside screens do.
final class GraphTreeComponent: Component, @unchecked Sendable {
    let isRoot: Bool
    var up: GraphTreeComponent { parent() }
    var tree: GraphTreeModule { module() }

    init(isRoot: Bool) {
        self.isRoot = isRoot
        super.init()
    }
}

final class GraphTreeModule: Module<GraphTreeComponent> {
    func node() -> Thing {
        single { c in
            let node = Thing()
            if !c.isRoot { node.link = c.up.tree.node() }
            return node
        }
    }
}

@Suite("A component describes itself")
struct ComponentDescriptionTests {
    @Test("print shows the modules, the parents and how many providers hold an instance, building nothing")
    func describesItself() {
        let app = TestComponent()
        #expect("\(app)" == "TestComponent(modules: none; parents: none; cached: 0 providers)")
        _ = app.things.transient()
        #expect("\(app)" == "TestComponent(modules: ThingModule; parents: none; cached: 0 providers)")
        _ = app.things.single()
        #expect("\(app)" == "TestComponent(modules: ThingModule; parents: none; cached: 1 provider)")
        let child = DescribedChildComponent().parent(app)
        #expect(
            "\(child)"
                == "DescribedChildComponent(modules: none; parents: TestComponent; cached: 0 providers)")
        #expect(app.counter.count == 2, "describing built nothing: one transient and one single")
    }
}

final class DescribedChildComponent: Component, @unchecked Sendable {
    var app: TestComponent { parent() }
}
