import Dirk
import DirkTestSupport
import Testing

@Suite("Uncached resolution with fresh")
struct FreshTests {
    @Test(
        "fresh builds a new instance of a cached provider and leaves the cached one in place",
        arguments: [Strategy.single, .keyed, .weak])
    func freshLeavesTheCacheAlone(strategy: Strategy) {
        let component = TestComponent()
        let cached = strategy.resolve(component)
        let fresh = component.things.fresh { _ in strategy.resolve(component) }
        #expect(fresh !== cached)
        #expect(strategy.resolve(component) === cached)
        #expect(component.counter.count == 2)
    }

    @Test("a fresh instance's dependencies resolve as usual, and its configure runs")
    func freshDependenciesAreCached() {
        let component = FreshComponent()
        let store = component.fresh.store()
        let copy = component.fresh.fresh { $0.repository() }
        #expect(copy.store === store)
        #expect(copy.configured)
        #expect(component.fresh.repository() !== copy)
    }

    @Test("a fresh build shows in traces and in the recorded graph as the provider's own call")
    func freshIsObserved() {
        let component = FreshComponent().startRecordingDependencies()
        _ = component.fresh.store()
        let (_, trace) = component.trace { component.fresh.fresh { $0.repository() } }
        #expect(trace == "FreshModule.repository() [single] new\n  FreshModule.store() [single] cached\n")
        _ = component.fresh.screen()
        let edges = Set(component.dependencyGraph().dependencies.map { "\($0.from) -> \($0.to)" })
        #expect(
            edges == [
                "FreshModule.repository() -> FreshModule.store()",
                "FreshModule.screen() -> FreshModule.repository()",
            ])
    }

    @Test("fresh on one thread leaves other threads' calls cached")
    func freshIsPerThread() async {
        let component = TestComponent()
        let cached = component.things.single()
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { component.things.fresh { $0.single() } !== cached }
            for _ in 0..<16 { group.addTask { component.things.single() === cached } }
            for await result in group { #expect(result) }
        }
    }
}

// MARK: Fixtures

final class Repository {
    let store: Store
    var configured = false

    init(store: Store) {
        self.store = store
    }
}

final class FreshComponent: Component, @unchecked Sendable {
    var fresh: FreshModule { module() }
}

final class FreshModule: Module<FreshComponent>, @unchecked Sendable {
    func store() -> Store { single { Store() } }
    /// A transient that uses a fresh repository.
    func screen() -> Repository { transient { c in c.fresh.fresh { $0.repository() } } }
    func repository() -> Repository {
        single(
            { c in Repository(store: c.fresh.store()) },
            configure: { repository, _ in repository.configured = true })
    }
}
