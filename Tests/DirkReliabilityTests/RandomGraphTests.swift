import Dirk
import DirkTestSupport
import Testing

/// The seeds every run tries; a failure names its seed, and `GraphSpec.random(seed:)` replays it.
let graphSeeds: [UInt64] = (1...24).map { $0 &* 0x9E37_79B9 }

@Suite("Random graphs follow the reference model")
struct RandomGraphTests {
    @Test("every resolution returns the instance the model predicts, across resets", arguments: graphSeeds)
    func graphsFollowTheModel(seed: UInt64) throws {
        try runAgainstTheModel(.random(seed: seed))
    }

    @Test(
        "the largest graphs, 500 providers over 5 components, follow the model",
        arguments: graphSeeds.prefix(3))
    func fullGraphsFollowTheModel(seed: UInt64) throws {
        try runAgainstTheModel(.random(seed: seed, full: true))
    }

    private func runAgainstTheModel(_ spec: GraphSpec) throws {
        let seed = spec.seed
        let tree = GraphTree(spec)
        var model = IdentityModel(spec: spec)
        var random = SplitMix(seed: seed)
        var resolutions = 0
        for _ in 0..<8 {
            var held: [Node] = []
            for _ in 0..<40 {
                let (level, index) = tree.randomNode(using: &random)
                let marks = tree.serialMarks
                let node = try tree.components[level].resolve(
                    index, key: Int.random(in: 0...2, using: &random))
                model.check(node, builtAfter: marks)
                held.append(node)
                resolutions += 1
            }
            if Bool.random(using: &random) {
                let level = Int.random(in: 0..<spec.levels, using: &random)
                tree.components[level].reset()
                model.reset(level: level)
            }
            held.removeAll()
        }
        report(
            "graph seed \(seed): \(spec.providerCount) providers on \(spec.levels) levels, "
                + "\(resolutions) resolutions, \(model.occurrences) instances checked")
        #expect(model.failures.isEmpty, "seed \(seed): \(model.failures.prefix(5))")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle through singles traps with its path")
    func singleCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let spec = GraphSpec(
                seed: 0, strategies: [[.single, .single, .single]],
                edges: [
                    [
                        [Edge(levelsUp: 0, index: 2, key: 0)], [Edge(levelsUp: 0, index: 0, key: 0)],
                        [Edge(levelsUp: 0, index: 1, key: 0)],
                    ]
                ])
            let tree = GraphTree(spec)
            _ = try? tree.components[0].resolve(0)
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: GraphModule.single0() -> GraphModule.single2() -> GraphModule.single1() -> GraphModule.single0()"
            ))
    }

    @Test("a cycle through transients and scoped providers across components traps")
    func mixedCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let spec = GraphSpec(
                seed: 0, strategies: [[.transient], [.scoped]],
                edges: [[[Edge(levelsUp: 0, index: 0, key: 0)]], [[Edge(levelsUp: 1, index: 0, key: 0)]]])
            let tree = GraphTree(spec)
            _ = try? tree.components[1].resolve(0)
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: dependency cycle: GraphModule.transient0() -> GraphModule.transient0()"))
    }
    #endif

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "random graphs closed into a cycle trap instead of overflowing the stack",
        arguments: [UInt64(3), 5, 8])
    func closedRandomGraphTraps(seed: UInt64) async {
        // The cycle: the last node of the root component depends on the first, which is made to
        // depend on the last. One process per seed: the first trap ends its process.
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [seed] in
            armExitTestWatchdog()
            let base = GraphSpec.random(seed: seed)
            let last = base.strategies[0].count - 1
            precondition(last > 0, "seed \(seed) has one node at the root, so no cycle to close")
            let spec = base.adding(last, asDependencyOf: 0, level: 0).adding(
                0, asDependencyOf: last, level: 0)
            let tree = GraphTree(spec)
            _ = try? tree.components[0].resolve(0)
        }
        #expect(standardError(of: result).contains("Dirk: dependency cycle: GraphModule."), "seed \(seed)")
    }
    #endif
}
