import Dirk
import DirkTestSupport
import Testing

@Suite("A recording sees async provider calls as it sees synchronous ones")
struct AsyncInsightTests {
    @Test("an async provider's calls, synchronous and async, are its dependencies")
    func asyncCallsAreRecorded() async {
        let app = AsyncGraphComponent().startRecordingDependencies()
        _ = await app.feeds.page()
        let graph = app.dependencyGraph()
        #expect(
            Set(graph.dependencies) == [
                .init(from: "AsyncGraphModule.feed()", to: "AsyncGraphModule.store()"),
                .init(from: "AsyncGraphModule.page()", to: "AsyncGraphModule.feed()"),
                .init(from: "AsyncGraphModule.page()", to: "AsyncGraphModule.header()"),
            ])
        #expect(
            graph.nodes.contains(
                .init(name: "AsyncGraphModule.feed()", strategy: .single.async, isCached: true)))
        #expect(
            graph.nodes.contains(
                .init(name: "AsyncGraphModule.page()", strategy: .transient.async, isCached: false)))
    }

    @Test("a call that an unobserved provider makes in between is no call of the outer provider")
    func callsThroughAnUnobservedProviderAreNotEdges() async {
        let other = AsyncGraphComponent()
        let app = AsyncGraphComponent().startRecordingDependencies()
        _ = await app.feeds.through(other)
        let graph = app.dependencyGraph()
        #expect(graph.dependencies.isEmpty, "\(graph.dependencies)")
        #expect(other.dependencyGraph().dependencies.isEmpty)
    }

    @Test("the calls of a child task and of an async handle, made for the provider, are its dependencies")
    func childTasksAndHandles() async {
        let app = AsyncGraphComponent().startRecordingDependencies()
        _ = await app.feeds.gathered()
        let edges = Set(app.dependencyGraph().dependencies)
        #expect(edges.contains(.init(from: "AsyncGraphModule.gathered()", to: "AsyncGraphModule.feed()")))
        #expect(edges.contains(.init(from: "AsyncGraphModule.gathered()", to: "AsyncGraphModule.header()")))
    }
}

final class AsyncGraphComponent: Component, @unchecked Sendable {
    var feeds: AsyncGraphModule { module() }
}

final class AsyncGraphModule: Module<AsyncGraphComponent> {
    func store() -> Store { single { Store() } }

    func feed() async -> GraphFeed {
        await single { c in
            _ = c.feeds.store()
            await Task.yield()
            return GraphFeed()
        }
    }

    func header() async -> GraphFeed {
        await transient {
            await Task.yield()
            return GraphFeed()
        }
    }

    func page() async -> [GraphFeed] {
        await transient { c in [await c.feeds.feed(), await c.feeds.header()] }
    }

    func through(_ other: AsyncGraphComponent) async -> GraphFeed {
        await transient { _ in await other.feeds.feed() }
    }

    func gathered() async -> [GraphFeed] {
        await transient { c in
            async let feed = c.feeds.feed()
            let header = c.lazy { await $0.feeds.header() }
            return [await feed, await header.value]
        }
    }
}

final class GraphFeed: Sendable {}
