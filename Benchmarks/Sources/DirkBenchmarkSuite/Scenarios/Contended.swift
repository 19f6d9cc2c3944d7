import Dirk
import Swinject

/// `contended`: two threads resolving the same cached singleton at once. Reported as the wall
/// time of the run divided by the operations of both threads.
///
/// The graphs are those of `single`. Swinject's plain `Container` must not be shared between
/// threads (every resolution updates its resolution depth), so its threads share the resolver
/// that `synchronize()` returns, which takes the container's recursive lock on every call.
enum ContendedScenario {
    static var scenario: Scenario {
        Scenario(
            name: "contended",
            handwritten: {
                let graph = SingleScenario.HandwrittenGraph()
                _ = graph.store()
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.store()) }
                    return sink
                }
            },
            dirk: {
                let app = SingleScenario.AppComponent()
                _ = app.data.store()
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.data.store()) }
                    return sink
                }
            },
            swinject: {
                let resolver = SynchronizedResolver(SingleScenario.makeContainer().synchronize())
                _ = resolver.base.resolve(SingleScenario.Store.self)!
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        sink &+= bits(of: resolver.base.resolve(SingleScenario.Store.self)!)
                    }
                    return sink
                }
            })
    }
}

/// A resolver returned by Swinject's `Container.synchronize()`, shared between threads.
///
/// `@unchecked Sendable`: that resolver holds no state of its own outside the container's
/// recursive lock, which it takes on every call.
private struct SynchronizedResolver: @unchecked Sendable {
    let base: Resolver

    init(_ base: Resolver) {
        self.base = base
    }
}
