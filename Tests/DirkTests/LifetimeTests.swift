import Dirk
import DirkTestSupport
import Testing

@Suite("Lifetimes and ownership")
struct LifetimeTests {
    @Test(
        "releasing a component releases its modules and everything it cached",
        arguments: [Strategy.single, .keyed])
    func releasingComponentReleasesEverything(strategy: Strategy) {
        weak var component: TestComponent?
        weak var module: ThingModule?
        weak var instance: Thing?
        do {
            let strong = TestComponent()
            component = strong
            module = strong.things
            instance = strategy.resolve(strong)
            #expect(instance != nil)
        }
        #expect(component == nil)
        #expect(module == nil)
        #expect(instance == nil)
    }

    @Test("cache hits count references: cached instances and values go with their component")
    func cacheHitsKeepReferenceCountsBalanced() {
        weak var instance: Thing?
        weak var held: Thing?
        do {
            let strong = HitsComponent()
            for _ in 0..<100 {
                instance = strong.hits.thing()
                held = strong.hits.wrapped().thing
                let described: any CustomStringConvertible = strong.hits.described()
                #expect(described.description == "described")
            }
            #expect(instance === strong.hits.thing())
            #expect(held === strong.hits.wrapped().thing)
        }
        #expect(instance == nil)
        #expect(held == nil)
    }

    @Test("a module does not keep its component alive")
    func moduleDoesNotRetainComponent() {
        weak var component: TestComponent?
        var module: ThingModule?
        do {
            let strong = TestComponent()
            component = strong
            module = strong.things
        }
        #expect(component == nil)
        #expect(module != nil)
    }

    @Test("a module that outlives its component drops the component's cached instances")
    func heldModuleDropsCachedInstances() {
        weak var instance: Thing?
        var module: ThingModule?
        do {
            let strong = TestComponent()
            module = strong.things
            instance = strong.things.single()
        }
        #expect(module != nil)
        #expect(instance == nil)
    }

    @Test("a child keeps its parent alive; a parent never keeps its child")
    func childHoldsParent() {
        weak var parent: RootComponent?
        weak var child: LeafComponent?
        var strongChild: LeafComponent? = LeafComponent().parent(RootComponent())
        child = strongChild
        parent = strongChild?.app
        #expect(parent != nil)
        strongChild = nil
        #expect(child == nil)
        #expect(parent == nil)

        let app = RootComponent()
        weak var feature: LeafComponent?
        feature = LeafComponent().parent(app)
        #expect(feature == nil)
    }

    @Test("instances linked through configure are released with their component")
    func configureLinksAreReleased() {
        weak var owner: Thing?
        weak var owned: Thing?
        do {
            let component = CoupleComponent()
            owner = component.couple.owner()
            owned = owner?.link
            #expect(owned?.back === owner)
        }
        #expect(owner == nil)
        #expect(owned == nil)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a module used after its component was released traps with a message that says so")
    func moduleAfterReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var component: TestComponent? = TestComponent()
            let module = component!.things
            component = nil
            _ = module.transient()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `ThingModule.transient()` was called after its component `TestComponent` was released")
        )
        #expect(message.contains("keep a reference to the component"))
        #expect(
            message.contains("A module kept in a property or captured by a closure does not keep it alive"))
    }

    @Test("a cached single is not served after its component was released")
    func cachedSingleAfterReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var component: TestComponent? = TestComponent()
            let module = component!.things
            _ = module.single()
            component = nil
            _ = module.single()
        }
        #expect(
            standardError(of: result).contains(
                "`ThingModule.single()` was called after its component `TestComponent` was released"))
    }
    #endif
}

/// A component whose singles are read many times: a class instance, a struct that holds one, and
/// an existential.
private final class HitsComponent: Component, @unchecked Sendable {
    var hits: HitsModule { module() }
}

private struct Wrapper {
    let thing: Thing
}

private final class Described: CustomStringConvertible, Sendable {
    var description: String { "described" }
}

private final class HitsModule: Module<HitsComponent> {
    func thing() -> Thing { single { Thing() } }
    func wrapped() -> Wrapper { single { Wrapper(thing: Thing()) } }
    func described() -> any CustomStringConvertible { single { Described() } }
}

@Suite("Components in their own deinit")
struct DeinitTests {
    /// What a component's `deinit` uses in `deinitUsingAccessorsTraps`.
    enum DeinitUse: CaseIterable, Sendable, Codable {
        /// A provider never called before.
        case provider
        /// A provider whose instance is cached.
        case cachedProvider
        /// A parent registered under the type its accessor asks for.
        case registeredParent
        /// An ancestor that the accessor finds by searching: the parent of a parent.
        case searchedAncestor

        /// The start of the message the `deinit` stops with.
        var message: String {
            switch self {
            case .provider, .cachedProvider:
                "Dirk: `DeinitModule` of `DeinitResolvingComponent` was used while `DeinitResolvingComponent` was being deinitialized"
            case .registeredParent:
                "Dirk: `DeinitParentComponent` of `DeinitChildComponent` was used while `DeinitChildComponent` was being deinitialized"
            case .searchedAncestor:
                "Dirk: `DeinitParentComponent` of `DeinitGrandchildComponent` was used while `DeinitGrandchildComponent` was being deinitialized"
            }
        }
    }

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "a component's deinit that uses its providers or its parent stops with the same message, resolved before or not",
        arguments: DeinitUse.allCases)
    func deinitUsingAccessorsTraps(use: DeinitUse) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [use] in
            switch use {
            case .provider, .cachedProvider:
                var component: DeinitResolvingComponent? = DeinitResolvingComponent()
                if use == .cachedProvider { _ = component?.things.store() }
                component = nil
            case .registeredParent:
                let parent = DeinitParentComponent()
                var component: DeinitChildComponent? = DeinitChildComponent().parent(parent)
                _ = component?.root
                component = nil
            case .searchedAncestor:
                let middle = DeinitChildComponent().parent(DeinitParentComponent())
                var component: DeinitGrandchildComponent? = DeinitGrandchildComponent().parent(middle)
                _ = component?.root
                component = nil
            }
        }
        let message = standardError(of: result)
        #expect(message.contains(use.message))
        #expect(message.contains("Keep what the `deinit` needs in a stored property"))
        #expect(message.contains("DirkTests/LifetimeTests.swift:"))
    }
    #endif

    @Test(
        "a transient calling the same provider of its parent 40 components deep resolves, and no component stays held after"
    )
    func transientChainThroughParents() {
        weak var leaf: ChainComponent?
        weak var root: ChainComponent?
        do {
            var component = ChainComponent(depth: 0)
            root = component
            for depth in 1...40 {
                let parent = component
                component = ChainComponent(depth: depth).parent(parent)
            }
            leaf = component
            #expect(component.links.count() == 40)
            #expect(throws: Flaky.self) { try component.links.count(throwingAt: 20) }
            #expect(component.links.count() == 40)
        }
        #expect(leaf == nil)
        #expect(root == nil)
    }
}

final class ChainComponent: Component, @unchecked Sendable {
    let depth: Int

    init(depth: Int) {
        self.depth = depth
        super.init()
    }

    var up: ChainComponent { parent() }
    var links: LinkModule { module() }
}

final class LinkModule: Module<ChainComponent> {
    /// How many components lie above this one, each counted by its own call of this provider.
    func count() -> Int { transient { c in c.depth == 0 ? 0 : c.up.links.count() + 1 } }

    /// The same count, which throws at the component of depth `failing`.
    func count(throwingAt failing: Int) throws(Flaky) -> Int {
        try transient { c throws(Flaky) in
            if c.depth == failing { throw Flaky() }
            return c.depth == 0 ? 0 : try c.up.links.count(throwingAt: failing) + 1
        }
    }
}

final class DeinitResolvingComponent: Component, @unchecked Sendable {
    var things: DeinitModule { module() }

    deinit {
        _ = things.store()
    }
}

final class DeinitParentComponent: Component, @unchecked Sendable {}

final class DeinitChildComponent: Component, @unchecked Sendable {
    var root: DeinitParentComponent { parent() }

    deinit {
        _ = root
    }
}

/// Reaches `DeinitParentComponent` through a `DeinitChildComponent`, by searching.
final class DeinitGrandchildComponent: Component, @unchecked Sendable {
    var root: DeinitParentComponent { parent() }

    deinit {
        _ = root
    }
}

final class DeinitModule: Module<DeinitResolvingComponent> {
    func store() -> Store { single { Store() } }
}
