import Dirk
import DirkTestSupport
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test(
        "a factory that throws in the middle of a graph caches nothing half-built",
        arguments: graphSeeds.prefix(12))
    func faultsCacheNothing(seed: UInt64) throws {
        let spec = GraphSpec.random(seed: seed)
        let faults = FaultPlan(seed: seed)
        let tree = GraphTree(spec, faults: faults)
        var model = IdentityModel(spec: spec)
        var random = SplitMix(seed: seed)
        var thrown = 0
        faults.failing(with: 0.15)
        for _ in 0..<300 {
            let (level, index) = tree.randomNode(using: &random)
            let marks = tree.serialMarks
            do {
                model.check(
                    try tree.components[level].resolve(index, key: Int.random(in: 0...2, using: &random)),
                    builtAfter: marks)
            } catch let fault as InjectedFault {
                // The error reaches the caller unchanged: it is the last one injected.
                #expect(fault.number == faults.injected, "seed \(seed)")
                thrown += 1
            }
        }
        faults.failing(with: 0)
        // Once the faults are gone every node resolves, and what was cached before still is.
        for component in tree.components {
            for index in spec.strategies[component.level].indices {
                let marks = tree.serialMarks
                model.check(try component.resolve(index), builtAfter: marks)
                if spec.strategies[component.level][index] == .single {
                    #expect(
                        component.builds.count(index, key: 0) == 1,
                        "seed \(seed): node \(component.level).\(index)")
                }
            }
        }
        report("fault seed \(seed): \(thrown) of 300 resolutions failed by injection")
        // Faults that never fired would leave nothing to check.
        #expect(thrown > 0, "seed \(seed): no injected fault reached a caller")
        #expect(model.failures.isEmpty, "seed \(seed): \(model.failures.prefix(5))")
    }
}
