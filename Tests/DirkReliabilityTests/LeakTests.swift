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
        "Lazy and Provider handles keep their component only while they need it",
        arguments: graphSeeds.prefix(4))
    func handlesReleaseTheirComponent(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        weak var root: GraphComponent?
        var instances: [IdentityModel.WeakNode] = []
        var lazies: [Lazy<Node>] = []
        var providers: [Provider<Node>] = []
        do {
            let tree = GraphTree(.random(seed: seed))
            root = tree.components[0]
            for _ in 0..<20 {
                let (level, index) = tree.randomNode(using: &random)
                let component = tree.components[level]
                lazies.append(component.graph.lazy { try! $0.resolve(index) })
                providers.append(component.graph.provider { try! $0.resolve(index) })
            }
        }
        // The handles hold the components (and, through the chain of parents, the root).
        #expect(root != nil, "seed \(seed)")
        for provider in providers { instances.append(.init(provider())) }
        providers.removeAll()
        for lazy in lazies { instances.append(.init(lazy.value)) }
        // Resolved lazies keep their value, not their component.
        #expect(root == nil, "seed \(seed): a resolved Lazy kept its component")
        lazies.removeAll()
        #expect(instances.allSatisfy { $0.node == nil }, "seed \(seed): instances outlived their handles")
    }
}
