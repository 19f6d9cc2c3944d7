import Dirk
import DirkTestSupport
import Dispatch
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
    func freshIsPerThread() throws {
        let component = TestComponent()
        let cached = component.things.single()
        // The other thread resolves while the fresh request is under way: it holds until then.
        let (inFresh, resolved) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let results = LockedBox<(fresh: Thing?, other: Thing?)>((nil, nil))
        withWatchdog {
            onThreads(2) { index in
                if index == 0 {
                    let fresh = component.things.fresh { module in
                        let fresh = module.single()
                        inFresh.signal()
                        resolved.wait()
                        return fresh
                    }
                    results.withLock { $0.fresh = fresh }
                } else {
                    inFresh.wait()
                    let other = component.things.single()
                    results.withLock { $0.other = other }
                    resolved.signal()
                }
            }
        }
        let fresh = try #require(results.withLock { $0.fresh })
        let other = try #require(results.withLock { $0.other })
        #expect(fresh !== cached, "the fresh call built anew")
        #expect(other === cached, "the call made during the fresh request got the cached one")
    }

    @MainActor
    @Test("an async fresh on an actor hands its closure a module it may send to a nonisolated provider")
    func asyncFreshOnAnActor() async {
        let component = FreshComponent()
        let cached = await component.fresh.asyncStore()
        // `FreshModule` is not `Sendable`; the closure sends it to its nonisolated async provider.
        let copy = await component.fresh.fresh { await $0.asyncStore() }
        #expect(copy !== cached)
        #expect(await component.fresh.asyncStore() === cached)
    }
}

// MARK: Fixtures

/// `configured` is written only by the provider's `configure:`, before Dirk hands the instance to
/// anyone: the build happens-before every read through the provider.
final class Repository: @unchecked Sendable {
    let store: Store
    var configured = false

    init(store: Store) {
        self.store = store
    }
}

final class FreshComponent: Component, @unchecked Sendable {
    var fresh: FreshModule { module() }
}

final class FreshModule: Module<FreshComponent> {
    func store() -> Store { single { Store() } }
    func asyncStore() async -> Store {
        await single {
            await Task.yield()
            return Store()
        }
    }
    /// A transient that uses a fresh repository.
    func screen() -> Repository { transient { c in c.fresh.fresh { $0.repository() } } }
    func repository() -> Repository {
        single(
            { c in Repository(store: c.fresh.store()) },
            configure: { repository, _ in repository.configured = true })
    }
}
