import Dirk
import DirkTestSupport
import Foundation

/// The strategy a node of a random graph is provided with.
enum Strategy: CaseIterable, Sendable {
    case single, transient, weak, scoped, keyed
}

/// One instance in a graph: which node it is, the serial number of its construction (unique in
/// a test), and the instances it was built from.
final class Node: Sendable {
    let level: Int
    let index: Int
    let key: Int
    let serial: Int
    let dependencies: [Node]

    init(level: Int, index: Int, key: Int, serial: Int, dependencies: [Node]) {
        self.level = level
        self.index = index
        self.key = key
        self.serial = serial
        self.dependencies = dependencies
    }
}

/// A dependency of a node: a node of the same component with a lower index, or any node of an
/// ancestor `levelsUp` levels up, so that every graph is acyclic unless a test adds a back edge.
struct Edge: Sendable {
    let levelsUp: Int
    let index: Int
    /// The key a keyed provider is asked with.
    let key: Int
}

/// A random dependency graph over a chain of components, each with up to 100 nodes.
struct GraphSpec: Sendable {
    let seed: UInt64
    /// The nodes of each level, component by component from the root.
    let strategies: [[Strategy]]
    /// The dependencies of each node.
    let edges: [[[Edge]]]

    var levels: Int { strategies.count }
    var providerCount: Int { strategies.reduce(0) { $0 + $1.count } }

    /// A graph of up to `maxProviders` providers over up to `maxLevels` components; a `full`
    /// graph has exactly that many.
    static func random(seed: UInt64, maxProviders: Int = 500, maxLevels: Int = 5, full: Bool = false)
        -> GraphSpec
    {
        var random = SplitMix(seed: seed)
        let levels = full ? maxLevels : Int.random(in: 1...maxLevels, using: &random)
        let perLevel = min(100, maxProviders / levels)
        var strategies: [[Strategy]] = []
        var edges: [[[Edge]]] = []
        for level in 0..<levels {
            let count = full ? perLevel : Int.random(in: 1...perLevel, using: &random)
            strategies.append((0..<count).map { _ in Strategy.allCases.randomElement(using: &random)! })
            edges.append(
                (0..<count).map { index in
                    (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in
                        let up = Int.random(in: 0...level, using: &random)
                        let available = up == 0 ? index : strategies[level - up].count
                        guard available > 0 else { return nil }
                        return Edge(
                            levelsUp: up, index: Int.random(in: 0..<available, using: &random),
                            key: Int.random(in: 0...2, using: &random))
                    }
                })
        }
        return GraphSpec(seed: seed, strategies: strategies, edges: edges)
    }

    /// The same graph with one more edge, from `from` to `to` in the same component, which may
    /// close a cycle.
    func adding(_ to: Int, asDependencyOf from: Int, level: Int) -> GraphSpec {
        var edges = edges
        edges[level][from].append(Edge(levelsUp: 0, index: to, key: 0))
        return GraphSpec(seed: seed, strategies: strategies, edges: edges)
    }
}

/// A deterministic random number generator, so that a seed replays a graph exactly.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var bits = state
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }
}

/// The error a factory throws when a test injects a fault; its number tells the faults apart.
struct InjectedFault: Error, Equatable {
    let number: Int
}

/// Decides, from a seed, which factory calls fail; safe from any thread.
final class FaultPlan: @unchecked Sendable {
    // `random`, `enabled` and `injected` are guarded by `lock`.
    private let lock = NSLock()
    private var random: SplitMix
    private var probability = 0.0
    private(set) var injected = 0

    init(seed: UInt64) {
        random = SplitMix(seed: seed ^ 0xFA17)
    }

    /// Makes each factory call fail with `probability` from now on.
    func failing(with probability: Double) {
        lock.withLock { self.probability = probability }
    }

    /// Throws an `InjectedFault` if this call is chosen to fail.
    func maybeFail() throws {
        let fault: InjectedFault? = lock.withLock {
            guard probability > 0, Double.random(in: 0..<1, using: &random) < probability else { return nil }
            injected += 1
            return InjectedFault(number: injected)
        }
        if let fault { throw fault }
    }
}

/// Counts successful constructions per node and key; safe from any thread.
final class BuildCounts: @unchecked Sendable {
    // `counts` is guarded by `lock`.
    private let lock = NSLock()
    private var counts: [[Int: Int]]

    init(nodes: Int) {
        counts = Array(repeating: [:], count: nodes)
    }

    func record(_ index: Int, key: Int) {
        lock.withLock { counts[index][key, default: 0] += 1 }
    }

    func count(_ index: Int, key: Int) -> Int {
        lock.withLock { counts[index][key] ?? 0 }
    }
}

/// One component of a graph's chain; its parent is the component one level up.
final class GraphComponent: Component, @unchecked Sendable {
    let level: Int
    let spec: GraphSpec
    let serials: Counter
    let faults: FaultPlan
    let builds: BuildCounts

    init(level: Int, spec: GraphSpec, faults: FaultPlan) {
        self.level = level
        self.spec = spec
        serials = Counter(start: level * 100_000_000)
        self.faults = faults
        builds = BuildCounts(nodes: spec.strategies[level].count)
        super.init()
    }

    var graph: GraphModule { module() }
    var up: GraphComponent { parent() }

    func ancestor(_ levelsUp: Int) -> GraphComponent {
        levelsUp == 0 ? self : up.ancestor(levelsUp - 1)
    }

    /// Resolves node `index` of this component, through its provider.
    func resolve(_ index: Int, key: Int = 0) throws -> Node {
        try graph.provide(spec.strategies[level][index], index, key: key)
    }

    /// Builds node `index`: resolves its dependencies, then counts the construction.
    func make(_ index: Int, key: Int) throws -> Node {
        try faults.maybeFail()
        let dependencies = try spec.edges[level][index].map { edge in
            try ancestor(edge.levelsUp).resolve(edge.index, key: edge.key)
        }
        builds.record(index, key: key)
        return Node(
            level: level, index: index, key: key,
            serial: serials.increment(), dependencies: dependencies)
    }
}

final class GraphModule: Module<GraphComponent> {}

/// The chain of components a graph runs on, root first.
struct GraphTree {
    let spec: GraphSpec
    let components: [GraphComponent]

    init(_ spec: GraphSpec, faults: FaultPlan? = nil) {
        self.spec = spec
        let faults = faults ?? FaultPlan(seed: spec.seed)
        var components: [GraphComponent] = []
        for level in 0..<spec.levels {
            let component = GraphComponent(level: level, spec: spec, faults: faults)
            if let parent = components.last { component.parent(parent) }
            components.append(component)
        }
        self.components = components
    }

    /// Each component's serial count now: what a check takes as "built before".
    var serialMarks: [Int] {
        components.map { $0.serials.count }
    }

    /// A random node, as its level and index.
    func randomNode(using random: inout SplitMix) -> (level: Int, index: Int) {
        let level = Int.random(in: 0..<spec.levels, using: &random)
        return (level, Int.random(in: 0..<spec.strategies[level].count, using: &random))
    }
}
