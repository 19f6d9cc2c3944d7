import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("Main-actor providers")
struct MainActorTests {
    @Test("a main-actor module builds main-actor objects, called from the main actor without await")
    @MainActor
    func mainActorModule() {
        let component = ScreenComponent()
        let first = component.screens.viewModel()
        let second = component.screens.viewModel()
        #expect(first !== second)
        #expect(component.screens.coordinator() === component.screens.coordinator())
        #expect(first.store === component.data.store())
    }

    @Test("a single main-actor provider in a nonisolated module works the same way")
    @MainActor
    func mainActorProviderInPlainModule() {
        let component = ScreenComponent()
        #expect(component.data.badge() === component.data.badge())
    }

    @Test("a MainActorModule serves main-actor callers without await")
    @MainActor
    func mainActorModuleBase() {
        let component = ScreenComponent()
        #expect(component.panels.panel() === component.panels.panel())
        #expect(component.panels.panel().store === component.data.store())
    }

    @Test("a main-actor provider is overridden with a main-actor fake built inside MainActor.assumeIsolated")
    @MainActor
    func mainActorOverride() {
        let fakeStore = SharedStore()
        let component = ScreenComponent().overriding {
            $0.panels.panel()
        } with: {
            MainActor.assumeIsolated { ScreenViewModel(store: fakeStore) }
        }
        #expect(component.panels.panel().store === fakeStore)
        #expect(component.panels.panel() === component.panels.panel(), "still a single")
        #expect(component.data.store() !== fakeStore)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a MainActorModule first asked for off the main thread stops with a message")
    func mainActorModuleOffMainTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            // A nonisolated accessor does not compile: the check guards a caller that skips the
            // compiler's (Swift 5 mode with minimal checking).
            let component = ScreenComponent()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.uncachedModule(of: PanelModule.self) }
            group.wait()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `ScreenComponent` was asked for its module `PanelModule`, a `MainActorModule`"))
        #expect(message.contains("declare the accessor that returns it `@MainActor`"))
    }

    @Test("a MainActorModule registered off the main thread stops with a message")
    func mainActorModuleRegisteredOffMainTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            // Made on the main actor, as its initializer must be, and registered off it.
            let component = ScreenComponent()
            let module = await MainActor.run { PanelModule(component) }
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.module { _ in module } }
            group.wait()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `ScreenComponent` was given the module `PanelModule`, a `MainActorModule`, on a thread other than the main thread"
            ))
        #expect(message.contains("Register it on the main actor"))
    }
    #endif

    @Test("other threads reach the main-actor objects with await, and the shared store without")
    func fromOtherThreads() async {
        let component = ScreenComponent()
        let coordinator = await component.screens.coordinator()
        let store = component.data.store()
        let coordinatorStore = coordinator.store
        #expect(coordinatorStore === store)
    }
}

// MARK: Fixtures

@MainActor
final class ScreenViewModel {
    let store: SharedStore

    init(store: SharedStore) {
        self.store = store
    }
}

@MainActor
final class Badge {}

final class SharedStore: Sendable {}

final class ScreenComponent: Component, @unchecked Sendable {
    var screens: ScreenModule { module() }
    @MainActor var panels: PanelModule { module() }
    var data: ScreenDataModule { module() }
}

final class ScreenDataModule: Module<ScreenComponent> {
    func store() -> SharedStore { single { SharedStore() } }
    @MainActor func badge() -> Badge { single { Badge() } }
}

@MainActor
final class ScreenModule: Module<ScreenComponent> {
    func viewModel() -> ScreenViewModel { transient { c in ScreenViewModel(store: c.data.store()) } }
    func coordinator() -> ScreenViewModel { single { c in ScreenViewModel(store: c.data.store()) } }
}

final class PanelModule: MainActorModule<ScreenComponent> {
    func panel() -> ScreenViewModel { single { c in ScreenViewModel(store: c.data.store()) } }
}

@Suite("A main-actor module keeps any type with every strategy")
struct MainActorStrategyTests {
    @Test("single(key:), scoped and weak keep a non-Sendable class, with or without the component")
    @MainActor
    func nonSendableStrategies() {
        let component = DraftComponent()
        #expect(component.drafts.draft(for: 1) === component.drafts.draft(for: 1))
        #expect(component.drafts.draft(for: 1) !== component.drafts.draft(for: 2))
        #expect(component.drafts.keyedWithComponent(1) === component.drafts.keyedWithComponent(1))
        let pair = component.drafts.pair()
        #expect(pair.0 === pair.1, "one instance per resolution")
        #expect(component.drafts.scopedWithComponent() !== component.drafts.scopedWithComponent())
        let held = component.drafts.shared()
        #expect(component.drafts.shared() === held)
        #expect(component.drafts.sharedWithComponent() === component.drafts.sharedWithComponent())
    }

    @Test("a main-actor single's close: runs on the main actor at shutdown")
    @MainActor
    func closeOnTheMainActor() async throws {
        let component = DraftComponent()
        let draft = component.drafts.closed()
        try await component.shutdown()
        #expect(draft.isClosed)
    }

    @Test(
        "the async fresh and trace run their closures on the caller's actor, which keeps non-Sendable values")
    @MainActor
    func asyncFreshAndTraceOnTheMainActor() async {
        let component = DraftComponent()
        let kept = component.drafts.draft(for: 1)
        let copy = await component.drafts.fresh { drafts in
            await Task.yield()
            MainActor.assertIsolated()
            return drafts.draft(for: 1)
        }
        #expect(copy !== kept)
        let (traced, trace) = await component.trace {
            await Task.yield()
            MainActor.assertIsolated()
            return component.drafts.draft(for: 1)
        }
        #expect(traced === kept)
        #expect(trace == "DraftModule.draft(for:) [single(key:)] cached\n")
    }
}

/// Not `Sendable`: only main-actor code uses it.
final class Draft {
    var isClosed = false
}

final class DraftComponent: Component, @unchecked Sendable {
    @MainActor var drafts: DraftModule { module() }
}

final class DraftModule: MainActorModule<DraftComponent> {
    func draft(for id: Int) -> Draft { single(key: id) { Draft() } }
    func keyedWithComponent(_ id: Int) -> Draft { single(key: id) { _ in Draft() } }
    func scopedDraft() -> Draft { scoped { Draft() } }
    func scopedWithComponent() -> Draft { scoped { _ in Draft() } }
    func pair() -> (Draft, Draft) { transient { c in (c.drafts.scopedDraft(), c.drafts.scopedDraft()) } }
    func shared() -> Draft { weak { Draft() } }
    func sharedWithComponent() -> Draft { weak { _ in Draft() } }
    func closed() -> Draft {
        single {
            Draft()
        } close: { draft in
            MainActor.assertIsolated()
            draft.isClosed = true
        }
    }
}
