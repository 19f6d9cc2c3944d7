import Dirk
import DirkTestSupport
import Testing

@Suite("No leaks")
struct LeakTests {
    @Test(
        "releasing a component tree releases every module and every instance it made",
        arguments: graphSeeds.prefix(8))
    func releasingTheTreeReleasesEverything(seed: UInt64) throws {
        var instances: [IdentityModel.WeakNode] = []
        var components: [WeakComponent] = []
        do {
            let tree = GraphTree(.random(seed: seed))
            var random = SplitMix(seed: seed)
            for _ in 0..<200 {
                let (level, index) = tree.randomNode(using: &random)
                let node = try tree.components[level].resolve(
                    index, key: Int.random(in: 0...2, using: &random))
                instances.append(.init(node))
            }
            components = tree.components.map { WeakComponent($0, module: $0.graph) }
        }
        #expect(instances.allSatisfy { $0.node == nil }, "seed \(seed): instances outlived their tree")
        #expect(components.allSatisfy { $0.component == nil && $0.module == nil }, "seed \(seed)")
    }

    @Test("reset() of the deepest component releases every instance it made", arguments: graphSeeds.prefix(8))
    func resetReleasesTheDeepestLevel(seed: UInt64) throws {
        let tree = GraphTree(.random(seed: seed))
        let deepest = tree.components[tree.spec.levels - 1]
        var instances: [IdentityModel.WeakNode] = []
        var random = SplitMix(seed: seed)
        for _ in 0..<100 {
            let index = Int.random(in: 0..<tree.spec.strategies[deepest.level].count, using: &random)
            let node = try deepest.resolve(index, key: Int.random(in: 0...2, using: &random))
            instances.append(.init(node))
        }
        deepest.reset()
        // Nothing below the deepest component refers to its instances, so none is left.
        let left = instances.compactMap(\.node).filter { $0.level == deepest.level }
        #expect(left.isEmpty, "seed \(seed): \(left.count) instances outlived reset()")
    }
}

/// Weak references to a component and its module.
final class WeakComponent {
    weak var component: GraphComponent?
    weak var module: GraphModule?

    init(_ component: GraphComponent, module: GraphModule) {
        self.component = component
        self.module = module
    }
}

@Suite("No leaks through configure")
struct ConfigureLeakTests {
    @Test("instances that set each other in configure closures go with their component and with reset()")
    func configuredPairsAreReleased() {
        weak var owner: Linked?
        weak var owned: Linked?
        do {
            let component = LinkedComponent()
            owner = component.links.owner()
            owned = owner?.next
            #expect(owned?.previous === owner)
            component.reset()
            #expect(owner == nil && owned == nil)
            owner = component.links.owner()
            owned = owner?.next
            #expect(owner != nil)
        }
        #expect(owner == nil)
        #expect(owned == nil)
    }
}

/// A node that refers forward strongly and back weakly, as a configure cycle should. Its links are
/// written only by its provider's `configure:`, before Dirk hands it to anyone else.
final class Linked: @unchecked Sendable {
    var next: Linked?
    weak var previous: Linked?
}

final class LinkedComponent: Component, @unchecked Sendable {
    var links: LinkedModule { module() }
}

final class LinkedModule: Module<LinkedComponent> {
    func owner() -> Linked { single({ Linked() }, configure: { owner, c in owner.next = c.links.owned() }) }
    func owned() -> Linked {
        single({ Linked() }, configure: { owned, c in owned.previous = c.links.owner() })
    }
}

@Suite("No leaks through handles")
struct HandleLeakTests {
    @Test(
        "handles never keep their component alive; a resolved Lazy keeps its value, not its component",
        arguments: graphSeeds.prefix(4))
    func handlesDoNotKeepTheirComponent(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        weak var root: GraphComponent?
        var instances: [IdentityModel.WeakNode] = []
        var resolved: [Lazy<Node>] = []
        do {
            let tree = GraphTree(.random(seed: seed))
            root = tree.components[0]
            var unread: [Lazy<Node>] = []
            var providers: [Provider<Node>] = []
            for _ in 0..<20 {
                let (level, index) = tree.randomNode(using: &random)
                let component = tree.components[level]
                resolved.append(component.lazy { try! $0.resolve(index) })
                unread.append(component.lazy { try! $0.resolve(index) })
                providers.append(component.provider { try! $0.resolve(index) })
            }
            // Swift may release a value after its last use, so the tree is kept for the reads.
            withExtendedLifetime(tree) {
                for provider in providers { instances.append(.init(provider())) }
                for lazy in resolved { instances.append(.init(lazy.value)) }
            }
            // Unread lazies and providers are still held here, as the tree goes.
            withExtendedLifetime((unread, providers)) {}
        }
        #expect(root == nil, "seed \(seed): a handle kept its component")
        // Each resolved Lazy still gives the instance it read while the tree was there.
        for (index, lazy) in resolved.enumerated() {
            #expect(lazy.value === instances[instances.count - resolved.count + index].node, "seed \(seed)")
        }
        resolved.removeAll()
        #expect(instances.allSatisfy { $0.node == nil }, "seed \(seed): instances outlived their handles")
    }

    @Test("a single that holds handles to its own component forms no retain cycle")
    func cachedInstanceHoldingHandles() {
        for _ in 0..<1_000 {
            weak var component: HandleHolderComponent?
            weak var holder: HandleHolder?
            do {
                let strong = HandleHolderComponent()
                component = strong
                holder = strong.handles.holder()
                #expect(holder?.later.value === holder?.later.value)
            }
            #expect(component == nil)
            #expect(holder == nil)
        }
    }

    @Test("a single that holds async handles to its own component forms no retain cycle")
    func cachedInstanceHoldingAsyncHandles() async {
        for _ in 0..<200 {
            weak var component: AsyncHandleHolderComponent?
            weak var holder: AsyncHandleHolder?
            weak var shared: SharedResource?
            do {
                let strong = AsyncHandleHolderComponent()
                component = strong
                let made = strong.handles.holder()
                holder = made
                let read = await made.later.value
                shared = read
                #expect(await made.later.value === read)
                #expect(await made.each() === read)
                // Swift may release a value after its last use, so the component is kept for the reads.
                withExtendedLifetime(strong) {}
            }
            #expect(component == nil)
            #expect(holder == nil)
            #expect(shared == nil)
        }
    }

    @Test("a single that holds main-actor handles to its own component forms no retain cycle")
    @MainActor
    func cachedInstanceHoldingMainActorHandles() {
        for _ in 0..<1_000 {
            weak var component: PanelHolderComponent?
            weak var holder: PanelHolder?
            weak var current: Panel?
            do {
                let strong = PanelHolderComponent()
                component = strong
                let made = strong.handles.holder()
                holder = made
                current = made.later.value
                #expect(made.later.value === strong.panels.current())
                #expect(made.each() !== made.each())
                withExtendedLifetime(strong) {}
            }
            #expect(component == nil)
            #expect(holder == nil)
            #expect(current == nil)
        }
    }
}

final class HandleHolder: Sendable {
    let later: Lazy<Linked>
    let unread: Lazy<Linked>
    let each: Provider<Linked>

    init(later: Lazy<Linked>, unread: Lazy<Linked>, each: Provider<Linked>) {
        self.later = later
        self.unread = unread
        self.each = each
    }
}

final class HandleHolderComponent: Component, @unchecked Sendable {
    var handles: HandleHolderModule { module() }
}

final class HandleHolderModule: Module<HandleHolderComponent> {
    func linked() -> Linked { single { Linked() } }
    func holder() -> HandleHolder {
        single { c in
            HandleHolder(
                later: c.lazy { $0.handles.linked() }, unread: c.lazy { $0.handles.linked() },
                each: c.provider { $0.handles.linked() })
        }
    }
}

/// A resource that async providers build.
final class SharedResource: Sendable {}

/// Holds async handles to the component whose single it is.
final class AsyncHandleHolder: Sendable {
    let later: AsyncLazy<SharedResource, Never>
    let unread: AsyncLazy<SharedResource, Never>
    let each: AsyncProvider<SharedResource, Never>

    init(
        later: AsyncLazy<SharedResource, Never>, unread: AsyncLazy<SharedResource, Never>,
        each: AsyncProvider<SharedResource, Never>
    ) {
        self.later = later
        self.unread = unread
        self.each = each
    }
}

final class AsyncHandleHolderComponent: Component, @unchecked Sendable {
    var handles: AsyncHandleHolderModule { module() }
}

final class AsyncHandleHolderModule: Module<AsyncHandleHolderComponent> {
    func shared() async -> SharedResource {
        await single { _ in
            await Task.yield()
            return SharedResource()
        }
    }
    func holder() -> AsyncHandleHolder {
        single { c in
            AsyncHandleHolder(
                later: c.lazy { await $0.handles.shared() },
                unread: c.lazy { await $0.handles.shared() },
                each: c.provider { await $0.handles.shared() })
        }
    }
}

/// A main-actor object, as a screen's view model is.
@MainActor
final class Panel {}

/// Holds main-actor handles to the component whose single it is; not isolated itself.
final class PanelHolder: Sendable {
    let later: MainActorLazy<Panel>
    let unread: MainActorLazy<Panel>
    let each: MainActorProvider<Panel>

    init(later: MainActorLazy<Panel>, unread: MainActorLazy<Panel>, each: MainActorProvider<Panel>) {
        self.later = later
        self.unread = unread
        self.each = each
    }
}

final class PanelHolderComponent: Component, @unchecked Sendable {
    var handles: PanelHolderModule { module() }
    @MainActor var panels: PanelModule { module() }
}

final class PanelHolderModule: Module<PanelHolderComponent> {
    func holder() -> PanelHolder {
        single { c in
            PanelHolder(
                later: c.mainActorLazy { $0.panels.current() },
                unread: c.mainActorLazy { $0.panels.current() },
                each: c.mainActorProvider { $0.panels.fresh() })
        }
    }
}

final class PanelModule: MainActorModule<PanelHolderComponent> {
    func current() -> Panel { single { Panel() } }
    func fresh() -> Panel { transient { Panel() } }
}

@Suite("Builders")
struct BuilderLeakTests {
    @Test(
        "a cached object that holds a child component keeps the whole scope alive; one that holds a builder handle does not"
    )
    func cachedBuilderKeepsNothingAlive() {
        weak var leakedParent: LoggedInComponent?
        weak var leakedChild: GameComponent?
        do {
            let parent = LoggedInComponent()
            let screen = parent.screens.screenHoldingAChild()
            (leakedParent, leakedChild) = (parent, screen.game)
        }
        // The cycle: the parent caches the screen, the screen holds the child, the child its parent.
        #expect(leakedParent != nil && leakedChild != nil, "the naive port leaks")
        leakedParent?.reset()
        #expect(leakedParent == nil && leakedChild == nil, "reset() breaks the cycle")

        weak var parentWithBuilder: LoggedInComponent?
        weak var builtChild: GameComponent?
        do {
            let parent = LoggedInComponent()
            let screen = parent.screens.screenHoldingABuilder()
            let game = screen.gameBuilder()
            #expect(game.game.score() === game.game.score())
            #expect(game.loggedIn === parent, "the builder opens its child under the parent")
            (parentWithBuilder, builtChild) = (parent, game)
        }
        #expect(parentWithBuilder == nil && builtChild == nil, "nothing outlives its owner")
    }
}

final class Score: Sendable {}

final class LoggedInComponent: Component, @unchecked Sendable {
    var screens: LoggedInModule { module() }
}

/// A screen that holds what it opens.
final class LoggedInScreen: Sendable {
    let game: GameComponent?
    let gameBuilder: Provider<GameComponent>

    init(game: GameComponent?, gameBuilder: Provider<GameComponent>) {
        self.game = game
        self.gameBuilder = gameBuilder
    }
}

final class LoggedInModule: Module<LoggedInComponent> {
    /// The naive port of Needle's builder: a cached screen holding a child component.
    func screenHoldingAChild() -> LoggedInScreen {
        single { c in LoggedInScreen(game: GameComponent().parent(c), gameBuilder: c.screens.gameBuilder()) }
    }

    /// The documented way: the cached screen holds a builder, a handle that opens a child on demand.
    func screenHoldingABuilder() -> LoggedInScreen {
        single { c in LoggedInScreen(game: nil, gameBuilder: c.screens.gameBuilder()) }
    }

    func gameBuilder() -> Provider<GameComponent> {
        transient { c in c.provider { GameComponent().parent($0) } }
    }
}

final class GameComponent: Component, @unchecked Sendable {
    var loggedIn: LoggedInComponent { parent() }
    var game: GameModule { module() }
}

final class GameModule: Module<GameComponent> {
    func score() -> Score { single { Score() } }
}
