import Dirk
import Swinject

/// `single`: resolving a singleton that is already cached.
enum SingleScenario {
    final class Store {}

    /// The hand-written baseline: a lazy var behind an accessor that is never inlined.
    ///
    /// `@unchecked Sendable` for `contended`: `storedStore` is written once, by the first call of
    /// `store()` before any other thread starts, and only read after that.
    final class HandwrittenGraph: @unchecked Sendable {
        private lazy var storedStore = Store()

        @inline(never)
        func store() -> Store {
            storedStore
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var data: DataModule { module() }
    }

    final class DataModule: Module<AppComponent>, @unchecked Sendable {
        func store() -> Store { single { Store() } }
    }

    static func makeContainer() -> Container {
        let container = Container()
        container.register(Store.self) { _ in Store() }.inObjectScope(.container)
        return container
    }

    /// The hand-written baseline's loop, which `single_override` measures against too.
    static func handwritten() -> Workload {
        let graph = HandwrittenGraph()
        _ = graph.store()
        return .serial { count in
            var sink: UInt = 0
            for _ in 0..<count { sink &+= bits(of: graph.store()) }
            return sink
        }
    }

    static var scenario: Scenario {
        Scenario(
            name: "single",
            handwritten: handwritten,
            dirk: {
                let app = AppComponent()
                _ = app.data.store()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.data.store()) }
                    return sink
                }
            },
            swinject: {
                let container = makeContainer()
                _ = container.resolve(Store.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(Store.self)!) }
                    return sink
                }
            })
    }
}
