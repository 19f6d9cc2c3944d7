import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Concurrency stress")
struct StressTests {
    @Test(
        "threads resolving random nodes of a shared tree build every single exactly once",
        arguments: graphSeeds.prefix(6))
    func threadsBuildSinglesOnce(seed: UInt64) throws {
        let tree = GraphTree(.random(seed: seed))
        let threads = 8
        let iterations = 2_000
        withWatchdog {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var random = SplitMix(seed: seed &+ UInt64(thread))
                for _ in 0..<iterations {
                    let (level, index) = tree.randomNode(using: &random)
                    _ = try! tree.components[level].resolve(index, key: Int.random(in: 0...2, using: &random))
                }
            }
        }
        report("stress seed \(seed): \(threads) threads × \(iterations) resolutions")
        try expectSinglesBuiltOnce(tree)
    }

    @Test(
        "many tasks resolving random nodes at once build every single exactly once",
        arguments: graphSeeds.prefix(3))
    func tasksBuildSinglesOnce(seed: UInt64) async throws {
        let tree = GraphTree(.random(seed: seed))
        await withAsyncWatchdog {
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<32 {
                    group.addTask {
                        var random = SplitMix(seed: seed &+ UInt64(task))
                        for _ in 0..<300 {
                            let (level, index) = tree.randomNode(using: &random)
                            _ = try! tree.components[level].resolve(
                                index, key: Int.random(in: 0...2, using: &random))
                        }
                    }
                }
            }
        }
        try expectSinglesBuiltOnce(tree)
    }

    @Test(
        "resolving children and parents in opposite orders while resetting never deadlocks",
        arguments: graphSeeds.prefix(4))
    func resolveWhileResetting(seed: UInt64) {
        let tree = GraphTree(.random(seed: seed))
        let levels = tree.spec.levels
        let (finished, resets) = (Counter(), Counter())
        withWatchdog {
            // Threads of their own, the readers starting once the resets have: from Dispatch's
            // pool, the resetter could start only after the readers had finished.
            onThreads(5) { thread in
                guard thread < 4 else {
                    var random = SplitMix(seed: seed)
                    repeat {
                        tree.components[Int.random(in: 0..<levels, using: &random)].reset()
                        resets.increment()
                    } while finished.count < 4
                    return
                }
                while resets.count == 0 { sched_yield() }
                var random = SplitMix(seed: seed &+ UInt64(thread))
                for _ in 0..<1_500 {
                    // Even threads walk the tree leaf first, odd ones root first.
                    let level =
                        thread.isMultiple(of: 2)
                        ? levels - 1 - Int.random(in: 0..<levels, using: &random) % levels
                        : Int.random(in: 0..<levels, using: &random)
                    let count = tree.spec.strategies[level].count
                    _ = try! tree.components[level].resolve(Int.random(in: 0..<count, using: &random))
                }
                finished.increment()
            }
        }
        #expect(finished.count == 4)
    }

    /// Every single and keyed single that was resolved was built exactly once.
    private func expectSinglesBuiltOnce(_ tree: GraphTree) throws {
        for component in tree.components {
            for (index, strategy) in tree.spec.strategies[component.level].enumerated() {
                switch strategy {
                case .single:
                    #expect(
                        component.builds.count(index, key: 0) <= 1,
                        "seed \(tree.spec.seed): node \(component.level).\(index)")
                    let resolved = try component.resolve(index)
                    #expect(try component.resolve(index) === resolved)
                    #expect(component.builds.count(index, key: 0) == 1)
                case .keyed:
                    for key in 0...2 {
                        #expect(
                            component.builds.count(index, key: key) <= 1,
                            "seed \(tree.spec.seed): node \(component.level).\(index) key \(key)")
                    }
                default:
                    break
                }
            }
        }
    }
}
