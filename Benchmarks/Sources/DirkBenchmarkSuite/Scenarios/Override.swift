import Dirk
import Swinject

/// `single_override` and `transient_override`: the scenarios `single` and a one-step transient,
/// with the provider replaced the way a test replaces it (`Component.overriding(_:with:)` in Dirk,
/// a registration on the test's own container in Swinject). An override must cost nothing once
/// its instance is cached, and a transient's override one check per build.
enum OverrideScenario {
    final class Store: Sendable {}

    final class Session: Sendable {
        let store: Store

        init(store: Store) {
            self.store = store
        }
    }

    /// The hand-written baseline: a lazy var and a factory method, neither inlined.
    final class HandwrittenGraph {
        private lazy var storedStore = Store()

        @inline(never)
        func store() -> Store {
            storedStore
        }

        @inline(never)
        func session() -> Session {
            Session(store: store())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var data: DataModule { module() }
    }

    final class DataModule: Module<AppComponent> {
        func store() -> Store { single { Store() } }
        func session() -> Session { transient { c in Session(store: c.data.store()) } }
    }

    /// A component whose two providers are overridden, as a test would.
    static func overriddenComponent() -> AppComponent {
        let fake = Store()
        return AppComponent()
            .overriding {
                $0.data.store()
            } with: { _ in
                fake
            }
            .overriding {
                $0.data.session()
            } with: { c in
                Session(store: c.data.store())
            }
    }

    /// `single`'s scenario with its store overridden: the same types, baselines and loops, so that
    /// the override must cost nothing beyond what `single` costs.
    static var singleScenario: Scenario {
        Scenario(
            name: "single_override",
            handwritten: SingleScenario.handwritten,
            dirk: {
                let fake = SingleScenario.Store()
                return SingleScenario.reading(
                    SingleScenario.AppComponent().overriding {
                        $0.data.store()
                    } with: { _ in
                        fake
                    })
            },
            swinject: {
                let container = SingleScenario.makeContainer()
                let fake = SingleScenario.Store()
                container.register(SingleScenario.Store.self) { _ in fake }.inObjectScope(.container)
                return SingleScenario.reading(container)
            })
    }

    static var transientScenario: Scenario {
        Scenario(
            name: "transient_override",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = graph.session()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.session()) }
                    return sink
                }
            },
            dirk: {
                let app = overriddenComponent()
                _ = app.data.session()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.data.session()) }
                    return sink
                }
            },
            swinject: {
                let container = Container()
                container.register(Store.self) { _ in Store() }.inObjectScope(.container)
                container.register(Session.self) { r in Session(store: r.resolve(Store.self)!) }
                let fake = Store()
                container.register(Store.self) { _ in fake }.inObjectScope(.container)
                container.register(Session.self) { r in Session(store: r.resolve(Store.self)!) }
                _ = container.resolve(Session.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(Session.self)!) }
                    return sink
                }
            })
    }
}
