import Dirk
import DirkTestSupport
import Testing

@Suite("Async and main-actor handles")
struct AsyncHandleTests {
    @Test("an AsyncLazy resolves an async provider once, for every task that reads it")
    func asyncLazyResolvesOnce() async throws {
        let component = DatabaseComponent()
        let handle = component.storage.asyncLazy { await $0.storage.database() }
        #expect(component.opened.count == 0)
        let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<50 { group.addTask { ObjectIdentifier(await handle.value) } }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(component.opened.count == 1)
    }

    @Test(
        "an AsyncLazy whose resolution throws gives the error to its readers and tries again on the next read"
    )
    func asyncLazyRethrows() async throws {
        let component = DatabaseComponent()
        component.failures.increment()
        let handle = component.storage.asyncLazy { try await $0.storage.flakyDatabase() }
        await #expect(throws: Flaky.self) { try await handle.value }
        let first = try await handle.value
        #expect(try await handle.value === first)
    }

    @Test("an AsyncProvider resolves anew on every call, with its provider's strategy")
    func asyncProviderEachCall() async {
        let component = DatabaseComponent()
        let connections = component.storage.asyncProvider { await $0.storage.connection() }
        let first = await connections()
        let second = await connections()
        #expect(first !== second)
        #expect(first.database === second.database)
    }

    @Test("main-actor handles resolve on the main actor and can be held by objects of any isolation")
    @MainActor
    func mainActorHandles() {
        let component = ScreenComponent()
        let screens = ScreenHolder(
            current: component.data.mainActorLazy { $0.screens.coordinator() },
            fresh: component.data.mainActorProvider { $0.screens.viewModel() })
        #expect(screens.current.value === component.screens.coordinator())
        #expect(screens.fresh() !== screens.fresh())
    }
}

/// Not isolated to the main actor, but holds main-actor handles.
final class ScreenHolder: Sendable {
    let current: MainActorLazy<ScreenViewModel>
    let fresh: MainActorProvider<ScreenViewModel>

    init(current: MainActorLazy<ScreenViewModel>, fresh: MainActorProvider<ScreenViewModel>) {
        self.current = current
        self.fresh = fresh
    }
}
