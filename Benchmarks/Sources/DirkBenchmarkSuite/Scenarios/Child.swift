import Dirk
import Swinject

/// `child`: creating a child scope under a long-lived parent and resolving, from the child, a
/// transient that needs the parent's cached singleton; the child is released at the end of the
/// operation.
///
/// The parent and its singleton are built and cached before timing. Per operation, Dirk creates
/// the child component, registers its parent, creates the child's module on first use and
/// resolves; Swinject creates `Container(parent:)`, registers the child's service and resolves;
/// the hand-written child is an object that holds its parent.
enum ChildScenario {
    final class Store: Sendable {}

    final class Session: Sendable {
        let store: Store

        init(store: Store) {
            self.store = store
        }
    }

    /// The hand-written parent: the singleton as a lazy var.
    final class HandwrittenParent {
        private lazy var storedStore = Store()

        @inline(never)
        func store() -> Store {
            storedStore
        }
    }

    /// The hand-written child: holds its parent and builds the transient from the parent's
    /// singleton.
    final class HandwrittenChild {
        let parent: HandwrittenParent

        private init(parent: HandwrittenParent) {
            self.parent = parent
        }

        /// Not inlined, so that the child is a heap object as it is in real use, where it outlives
        /// the function that creates it.
        @inline(never)
        static func make(parent: HandwrittenParent) -> HandwrittenChild {
            HandwrittenChild(parent: parent)
        }

        @inline(never)
        func session() -> Session {
            Session(store: parent.store())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var data: DataModule { module() }
    }

    final class DataModule: Module<AppComponent> {
        func store() -> Store { single { Store() } }
    }

    final class FeatureComponent: Component, @unchecked Sendable {
        var app: AppComponent { parent() }
        var feature: FeatureModule { module() }
    }

    final class FeatureModule: Module<FeatureComponent> {
        func session() -> Session { transient { c in Session(store: c.app.data.store()) } }
    }

    static var scenario: Scenario {
        Scenario(
            name: "child",
            handwritten: {
                let parent = HandwrittenParent()
                _ = parent.store()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        let child = HandwrittenChild.make(parent: parent)
                        sink &+= bits(of: child.session())
                    }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = app.data.store()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        let feature = FeatureComponent().parent(app)
                        sink &+= bits(of: feature.feature.session())
                    }
                    return sink
                }
            },
            swinject: {
                let parent = Container()
                parent.register(Store.self) { _ in Store() }.inObjectScope(.container)
                _ = parent.resolve(Store.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        let child = Container(parent: parent)
                        child.register(Session.self) { r in Session(store: r.resolve(Store.self)!) }
                            .inObjectScope(.transient)
                        sink &+= bits(of: child.resolve(Session.self)!)
                    }
                    return sink
                }
            })
    }
}
