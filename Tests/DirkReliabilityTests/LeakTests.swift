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

/// A node that refers forward strongly and back weakly, as a configure cycle should.
final class Linked {
    var next: Linked?
    weak var previous: Linked?
}

final class LinkedComponent: Component, @unchecked Sendable {
    var links: LinkedModule { module() }
}

final class LinkedModule: Module<LinkedComponent>, @unchecked Sendable {
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
                resolved.append(component.graph.lazy { try! $0.resolve(index) })
                unread.append(component.graph.lazy { try! $0.resolve(index) })
                providers.append(component.graph.provider { try! $0.resolve(index) })
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
        for lazy in resolved { #expect(lazy.value.serial >= 0, "seed \(seed)") }
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
}

final class HandleHolder: @unchecked Sendable {
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

final class HandleHolderModule: Module<HandleHolderComponent>, @unchecked Sendable {
    func linked() -> Linked { single { Linked() } }
    func holder() -> HandleHolder {
        single { c in
            HandleHolder(
                later: c.handles.lazy { $0.handles.linked() }, unread: c.handles.lazy { $0.handles.linked() },
                each: c.handles.provider { $0.handles.linked() })
        }
    }
}
