import Dirk
import Swinject

/// `scale1000`: resolving cached singletons in a scope that has 1,000 providers, all resolved
/// and cached before timing.
///
/// One iteration resolves eight providers spread over the 1,000 (listed on `resolveSample()` in
/// the generated file), unrolled so that no dispatch is timed; times are reported per resolution.
/// Eight different providers, rather than one, keep a lucky or unlucky position in a hash table
/// from deciding the result. Compare with `single`, the same operation in a scope of one provider.
/// Dirk's 1,000 providers share one module, the worst case for its per-module slot table.
/// The services and the three graphs are in `Scale1000+Generated.swift`, written at
/// build time by `ScenarioSourceGenerator` (`Scale1000Source.swift`).
enum Scale1000Scenario {
    static var scenario: Scenario {
        Scenario(
            name: "scale1000", operationsPerIteration: 8,
            handwritten: {
                let graph = HandwrittenGraph()
                _ = graph.resolveAll()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= graph.resolveSample() }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = app.resolveAll()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= app.resolveSample() }
                    return sink
                }
            },
            swinject: {
                let container = Container()
                SwinjectGraph.register(in: container)
                _ = SwinjectGraph.resolveAll(in: container)
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= SwinjectGraph.resolveSample(in: container) }
                    return sink
                }
            })
    }
}
