import Dirk
import Swinject

/// The graphs of `single_xmod`: those of `single`, declared in this module rather than in the
/// module that resolves from them, as an app's components often are. The caller then sees only
/// what this module exports: `public` declarations and what Dirk marks `@inlinable`.
public enum CrossModuleSingle {
    public final class Store: Sendable {
        public init() {}
    }

    /// The hand-written baseline: a lazy var behind an accessor that is never inlined.
    public final class HandwrittenGraph {
        private lazy var storedStore = Store()

        public init() {}

        @inline(never)
        public func store() -> Store {
            storedStore
        }
    }

    public final class AppComponent: Component, @unchecked Sendable {
        public var data: DataModule { module() }
    }

    public final class DataModule: Module<AppComponent> {
        public func store() -> Store { single { Store() } }
    }

    public static func makeContainer() -> Container {
        let container = Container()
        container.register(Store.self) { _ in Store() }.inObjectScope(.container)
        return container
    }
}
