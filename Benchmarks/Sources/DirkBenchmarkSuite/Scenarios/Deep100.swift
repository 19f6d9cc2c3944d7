import Dirk
import Swinject

/// `deep100`: `deep10` ten times deeper. A chain of 100 transients, `Node100` → `Node099` → … →
/// `Node001`, ends in the cached singleton `Node000`; one operation resolves `Node100`, which
/// builds 100 new objects.
///
/// The nodes and the three graphs are in `Deep100+Generated.swift`, written at
/// build time by `ScenarioSourceGenerator` (`Deep100Source.swift`).
enum Deep100Scenario {
    static var scenario: Scenario {
        Scenario(
            name: "deep100",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = graph.node100()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.node100()) }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = app.chain.node100()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.chain.node100()) }
                    return sink
                }
            },
            swinject: {
                let container = Container()
                SwinjectGraph.register(in: container)
                _ = container.resolve(Deep100Nodes.Node100.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(Deep100Nodes.Node100.self)!) }
                    return sink
                }
            })
    }
}
