import CrossModuleFixtures
import Dirk
import Swinject

/// `single_xmod`: `single` with the graphs declared in another module, `CrossModuleFixtures`.
///
/// Dirk's component, module and provider, and the hand-written accessor, are compiled apart from
/// this loop, so only what that module exports can be inlined here: what Dirk marks `@inlinable`,
/// and whatever the compiler's cross-module optimization chooses to export. Compare with `single`,
/// where everything is in the loop's own module.
enum SingleCrossModuleScenario {
    typealias Fixtures = CrossModuleSingle

    static var scenario: Scenario {
        Scenario(
            name: "single_xmod",
            handwritten: {
                let graph = Fixtures.HandwrittenGraph()
                _ = graph.store()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.store()) }
                    return sink
                }
            },
            dirk: {
                let app = Fixtures.AppComponent()
                _ = app.data.store()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.data.store()) }
                    return sink
                }
            },
            swinject: {
                let container = Fixtures.makeContainer()
                _ = container.resolve(Fixtures.Store.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(Fixtures.Store.self)!) }
                    return sink
                }
            })
    }
}
