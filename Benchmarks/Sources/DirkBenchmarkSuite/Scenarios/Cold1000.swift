import Dirk
import Swinject

/// `cold1000`: building a new scope and resolving each of its 1,000 providers for the first time,
/// in order, then releasing the scope; `cold` at the size of a large app.
///
/// 800 providers are singletons and 200 transients (every fifth), the mix of `cold`; every
/// service but the first needs one earlier service, so a first resolution also resolves a
/// dependency, cached or, for a transient, new. Dirk's 1,000 providers share one module, as in
/// `scale1000`; Swinject registers all 1,000 services in a new container, as creating such a scope
/// requires. The services and the three graphs are in `Cold1000+Generated.swift`, written at
/// build time by `ScenarioSourceGenerator` (`Cold1000Source.swift`).
enum Cold1000Scenario {
    static var scenario: Scenario {
        Scenario(
            name: "cold1000",
            handwritten: {
                .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= HandwrittenGraph.make().resolveAll() }
                    return sink
                }
            },
            dirk: {
                .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        // Held in a constant: modules do not keep their component alive.
                        let app = AppComponent()
                        sink &+= app.resolveAll()
                    }
                    return sink
                }
            },
            swinject: {
                .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        let container = Container()
                        SwinjectGraph.register(in: container)
                        sink &+= SwinjectGraph.resolveAll(in: container)
                    }
                    return sink
                }
            })
    }
}
