import Dirk
import DirkTestSupport
import Testing

@Suite("Graph insight")
struct InsightTests {
    @Test("a component reports its parents, modules, providers, strategies and cached state")
    func structure() {
        let app = RootComponent()
        let feature = LeafComponent().parent { app }
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

    @Test("a trace shows the resolution as an indented tree of new and cached instances")
    func traceShowsTheTree() {
        let app = RootComponent()
        let feature = LeafComponent().parent { app }
        _ = app.root.store()
        let (_, trace) = feature.trace { feature.leaf.viewModel() }
        #expect(trace == "LeafModule.viewModel() [transient] new\n  RootModule.store() [single] cached\n")
        let (_, untraced) = feature.trace { 0 }
        #expect(untraced.isEmpty)
    }
}
