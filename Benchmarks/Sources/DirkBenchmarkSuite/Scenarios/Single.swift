import Dirk
import Swinject

/// `single`: resolving a singleton that is already cached.
enum SingleScenario {
    final class Store: Sendable {}

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

    final class DataModule: Module<AppComponent> {
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
            dirk: { reading(AppComponent()) },
            swinject: { reading(makeContainer()) })
    }

    /// Reads `app`'s cached store in a loop, after a first read: `single`'s workload for Dirk, and
    /// `single_override`'s.
    static func reading(_ app: AppComponent) -> Workload {
        _ = app.data.store()
        return .serial { count in
            var sink: UInt = 0
            for _ in 0..<count { sink &+= bits(of: app.data.store()) }
            return sink
        }
    }

    /// Resolves the container's cached store in a loop, after a first resolution: `single`'s
    /// workload for Swinject, and `single_override`'s.
    static func reading(_ container: Container) -> Workload {
        _ = container.resolve(Store.self)!
        return .serial { count in
            var sink: UInt = 0
            for _ in 0..<count { sink &+= bits(of: container.resolve(Store.self)!) }
            return sink
        }
    }
}
