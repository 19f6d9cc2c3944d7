import Dirk
import DirkTestSupport
import Foundation
import Testing

@Suite("Collections of contributions")
struct ContributionTests {
    @Test("a component answers the whole collection, as a list in order and as a map by key")
    func wholeCollection() {
        let app = PluginApp()
        #expect(app.resolveContributions(of: Plugin.self).map(\.name) == ["auth", "log"])
        #expect(app.resolveContributionsByKey(of: Plugin.self).keys.sorted() == ["auth", "log"])
        #expect(app.resolveContributionsByKey(of: Plugin.self)["auth"] === app.plugins.auth())
    }

    @Test("contributions are listed and filtered by metadata without building anything")
    func filterWithoutBuilding() {
        let app = PluginApp()
        let late = app.contributions(of: Plugin.self).filter { ($0.metadata(as: Int.self) ?? 0) > 15 }
        #expect(late.map(\.key) == ["log"])
        #expect(app.built.count == 0)
        #expect(late.map { $0.resolve().name } == ["log"])
        #expect(app.built.count == 1)
    }

    @Test("a child's contributions add to its parents' and never change them")
    func childAddsToParents() {
        let app = PluginApp()
        let session = PluginSession().parent(app)
        #expect(session.resolveContributions(of: Plugin.self).map(\.name) == ["auth", "log", "session"])
        #expect(app.resolveContributions(of: Plugin.self).map(\.name) == ["auth", "log"])
        #expect(session.contributions(of: Plugin.self).last?.contributor == PluginSession.self)
    }

    @Test("ancestors' contributions come first, each after its own parents', parents in the order registered")
    func ancestorsOrder() {
        let root = ContributingNode().contribute(String.self, key: "root") { _ in "root" }
        let lone = ContributingNode().contribute(String.self, key: "lone") { _ in "lone" }
        let middle = ContributingLeaf().parent(root).contribute(String.self, key: "middle") { _ in "middle"
        }
        let leaf = ContributingLeaf().parent(lone, as: ContributingNode.self).parent(
            middle, as: Component.self
        )
        .contribute(String.self, key: "leaf") { _ in "leaf" }
        #expect(leaf.resolveContributions(of: String.self) == ["lone", "root", "middle", "leaf"])
    }

    @Test("an instance that the component caches may hold its contributions: they do not keep it alive")
    func cachedContributionsDoNotKeepTheComponent() {
        weak var released: PluginApp?
        do {
            let app = PluginApp()
            released = app
            let router = app.plugins.router()
            #expect(router.plugins.map { $0.resolve().name } == ["auth", "log"])
            #expect(app.plugins.router() === router)
        }
        #expect(released == nil, "the router's contributions formed a retain cycle with the component")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a key already used in the collection, here by a parent, traps")
    func duplicateKeyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = PluginApp()
            PluginSession().parent(app).contribute(Plugin.self, key: "auth") { _ in Plugin(name: "fake") }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `PluginSession` contributed `Plugin` under the key \"auth\", which `PluginApp` already uses"
            ))
        #expect(message.contains("choose another key"))
    }

    @Test("keys of any Hashable type make a collection of their own, read with keyedBy:")
    func enumKeys() {
        let app = PluginApp()
            .contribute(Plugin.self, key: Slot.first, metadata: 1) { _ in Plugin(name: "first") }
            .contribute(Plugin.self, key: Slot.second) { $0.plugins.auth() }
        let bySlot = app.resolveContributionsByKey(of: Plugin.self, keyedBy: Slot.self)
        #expect(bySlot[.first]?.name == "first")
        #expect(bySlot[.second] === app.plugins.auth())
        #expect(app.contributions(of: Plugin.self, keyedBy: Slot.self).map(\.key) == [.first, .second])
        #expect(
            app.resolveContributions(of: Plugin.self, keyedBy: Slot.self).map(\.name) == ["first", "auth"])
        // The collection keyed by strings is another, unchanged.
        #expect(app.resolveContributions(of: Plugin.self).map(\.name) == ["auth", "log"])
        let byName: [String: Plugin] = app.resolveContributionsByKey(of: Plugin.self)
        #expect(byName.keys.sorted() == ["auth", "log"])
    }

    @MainActor
    @Test(
        "a main-actor contribution is built on the main actor, from main-actor providers, in the same collection"
    )
    func mainActorContributions() {
        let app = PluginApp()
            .contributeOnMainActor(Plugin.self, key: "screen", metadata: 30) { $0.screens.screenPlugin() }
        #expect(app.built.count == 0, "listed without building")
        let all = app.resolveContributionsByKey(of: Plugin.self)
        #expect(all.keys.sorted() == ["auth", "log", "screen"])
        #expect(all["screen"] === app.screens.screenPlugin())
        let tabs = PluginApp().contributeOnMainActor(Tab.self, key: Slot.first) { _ in Tab(title: "Home") }
        #expect(tabs.resolveContributions(of: Tab.self, keyedBy: Slot.self).map(\.title) == ["Home"])
    }

    @Test(
        "a key that another thread contributes to the same component meanwhile traps in the second contribution"
    )
    func duplicateKeyRaceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let session = PluginSession()
            // This thread checks the collection first, then lets another thread contribute the
            // same key before it takes the lock.
            func letAnotherThreadContribute() {
                let finished = DispatchSemaphore(value: 0)
                Thread {
                    session.contribute(Plugin.self, key: "race") { _ in Plugin(name: "other") }
                    finished.signal()
                }.start()
                finished.wait()
            }
            session.addContribution(
                Plugin.self, key: "race", metadata: nil, file: #fileID, line: #line,
                beforeLocking: letAnotherThreadContribute, { _, _, _ in Plugin(name: "this") })
            // Reached only if both contributions were added: the listing stops instead.
            _ = session.contributions(of: Plugin.self)
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `PluginSession` contributed `Plugin` under the key \"race\", which `PluginSession` already uses"
            ), "stopped at the contribution, not later")
    }

    @Test(
        "a key that a parent registered after the child contributed brings too traps where the collection is listed"
    )
    func duplicateKeyFromALaterParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let session = PluginSession().contribute(Plugin.self, key: "auth") { _ in Plugin(name: "fake") }
            _ = session.parent(PluginApp()).contributions(of: Plugin.self)
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: the collection of `Plugin` holds two contributions under the key \"auth\", one from `PluginApp` and one from `PluginSession`, found as the collection was listed here"
            ))
        #expect(message.contains("register parents before contributing"))
    }

    @Test("a helper that contributes passes its caller's place on, and a clash names the caller's line")
    func helperPassesTheCallSite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PluginApp().addPlugin(named: "log")  // the clashing line, which the message must name
        }
        let message = standardError(of: result)
        #expect(message.contains("under the key \"log\", which `PluginApp` already uses"))
        #expect(message.contains("DirkTests/ContributionTests.swift:\(#line - 5)"), "the caller's line")
    }

    @Test("a main-actor contribution resolved off the main thread stops with a message")
    func mainActorContributionOffTheMainThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = await MainActor.run {
                PluginApp().contributeOnMainActor(Plugin.self, key: "screen") { $0.screens.screenPlugin() }
            }
            let done = DispatchSemaphore(value: 0)
            Thread {
                _ = app.resolveContributions(of: Plugin.self)
                done.signal()
            }.start()
            done.wait()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: the contribution \"screen\" to the collection of `Plugin`, which `PluginApp` contributed with `contributeOnMainActor`, was resolved on a thread other than the main thread"
            ))
        #expect(message.contains("Resolve the collection on the main actor"))
    }
    #endif
}

// MARK: Fixtures

enum Slot: Hashable, Sendable { case first, second }

/// A main-actor class that is not `Sendable` by any other means.
@MainActor final class Tab {
    let title: String

    init(title: String) {
        self.title = title
    }
}

extension PluginApp {
    @MainActor var screens: PluginScreens { module() }

    /// A helper that contributes for its callers: a clash names the caller's line.
    func addPlugin(named name: String, file: StaticString = #fileID, line: UInt = #line) -> PluginApp {
        contribute(Plugin.self, key: name, { _ in Plugin(name: name) }, file: file, line: line)
    }
}

final class PluginScreens: MainActorModule<PluginApp> {
    func screenPlugin() -> Plugin { single { Plugin(name: "screen") } }
}

final class ContributingNode: Component, @unchecked Sendable {}
final class ContributingLeaf: Component, @unchecked Sendable {}

final class Plugin: @unchecked Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }
}

final class PluginApp: Component, @unchecked Sendable {
    let built = Counter()
    var plugins: PluginModule { module() }

    override init() {
        super.init()
        contribute(Plugin.self, key: "auth", metadata: 10) { $0.plugins.auth() }
        contribute(Plugin.self, key: "log", metadata: 20) { $0.plugins.log() }
    }
}

/// Chooses among the plugins later: holds their contributions, not the plugins.
final class PluginRouter: @unchecked Sendable {
    let plugins: [Contribution<Plugin>]

    init(plugins: [Contribution<Plugin>]) {
        self.plugins = plugins
    }
}

final class PluginModule: Module<PluginApp> {
    func router() -> PluginRouter { single { c in PluginRouter(plugins: c.contributions(of: Plugin.self)) } }

    func auth() -> Plugin {
        single { c in
            c.built.increment()
            return Plugin(name: "auth")
        }
    }
    func log() -> Plugin {
        transient { c in
            c.built.increment()
            return Plugin(name: "log")
        }
    }
}

final class PluginSession: Component, @unchecked Sendable {
    override init() {
        super.init()
        contribute(Plugin.self, key: "session") { _ in Plugin(name: "session") }
    }
}
