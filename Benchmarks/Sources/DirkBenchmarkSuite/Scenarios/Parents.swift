import Dirk
import Swinject

/// `parents1` and `parents10`: creating a leaf scope under a chain of 1 or 10 parent scopes and
/// resolving, from the leaf, the cached singleton of the top of the chain.
///
/// The chain is built, and the top's singleton cached, before timing. Per operation, Dirk creates
/// the leaf component, registers the nearest level as its parent with `.parent(nearest)`, and
/// resolves through `var top: TopComponent { parent() }`, which searches the leaf's ancestors;
/// Swinject creates `Container(parent: nearest)` and resolves from it, which asks each container
/// up the chain; the hand-written leaf is an object that holds its parent, and its `top` walks
/// the parents to the top.
enum ParentsScenario {
    final class Store: Sendable {}

    /// A hand-written scope: it holds its parent, if it has one.
    class HandwrittenScope {
        let parent: HandwrittenScope?

        init(parent: HandwrittenScope?) {
            self.parent = parent
        }
    }

    /// The hand-written top of the chain: the singleton as a lazy var.
    final class HandwrittenTop: HandwrittenScope {
        private lazy var storedStore = Store()

        init() {
            super.init(parent: nil)
        }

        @inline(never)
        func store() -> Store {
            storedStore
        }
    }

    /// The hand-written leaf: holds the nearest scope of the chain.
    final class HandwrittenLeaf {
        let parent: HandwrittenScope

        private init(parent: HandwrittenScope) {
            self.parent = parent
        }

        /// Not inlined, so that the leaf is a heap object as it is in real use.
        @inline(never)
        static func make(parent: HandwrittenScope) -> HandwrittenLeaf {
            HandwrittenLeaf(parent: parent)
        }

        /// The top of the chain, found by walking up the parents.
        var top: HandwrittenTop {
            @inline(never) get {
                var scope = parent
                while let next = scope.parent { scope = next }
                return unsafeDowncast(scope, to: HandwrittenTop.self)
            }
        }
    }

    final class TopComponent: Component, @unchecked Sendable {
        var data: DataModule { module() }
    }

    final class DataModule: Module<TopComponent> {
        func store() -> Store { single { Store() } }
    }

    // The levels between the top and the leaf in `parents10`, each a scope of its own type, as an
    // app's nested scopes are.
    final class Level1Component: Component, @unchecked Sendable {}
    final class Level2Component: Component, @unchecked Sendable {}
    final class Level3Component: Component, @unchecked Sendable {}
    final class Level4Component: Component, @unchecked Sendable {}
    final class Level5Component: Component, @unchecked Sendable {}
    final class Level6Component: Component, @unchecked Sendable {}
    final class Level7Component: Component, @unchecked Sendable {}
    final class Level8Component: Component, @unchecked Sendable {}
    final class Level9Component: Component, @unchecked Sendable {}

    final class LeafComponent: Component, @unchecked Sendable {
        var top: TopComponent { parent() }
    }

    /// Builds the chain of `levels` Dirk components, each level the parent of the next, resolves
    /// the top's store, and returns the loop of leaves under the last level.
    static func dirkWorkload(levels: Int) -> Workload {
        let top = TopComponent()
        _ = top.data.store()
        guard levels > 1 else { return dirkLoop(nearest: top) }
        precondition(levels == 10, "the Dirk chain has 1 or 10 levels")
        let level1 = Level1Component().parent(top)
        let level2 = Level2Component().parent(level1)
        let level3 = Level3Component().parent(level2)
        let level4 = Level4Component().parent(level3)
        let level5 = Level5Component().parent(level4)
        let level6 = Level6Component().parent(level5)
        let level7 = Level7Component().parent(level6)
        let level8 = Level8Component().parent(level7)
        let level9 = Level9Component().parent(level8)
        return dirkLoop(nearest: level9)
    }

    static func scenario(levels: Int) -> Scenario {
        Scenario(
            name: "parents\(levels)",
            handwritten: {
                let top = HandwrittenTop()
                _ = top.store()
                var nearest: HandwrittenScope = top
                for _ in 1..<levels { nearest = HandwrittenScope(parent: nearest) }
                return .serial { [nearest] count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        let leaf = HandwrittenLeaf.make(parent: nearest)
                        sink &+= bits(of: leaf.top.store())
                    }
                    return sink
                }
            },
            dirk: { dirkWorkload(levels: levels) },
            swinject: {
                let top = Container()
                top.register(Store.self) { _ in Store() }.inObjectScope(.container)
                _ = top.resolve(Store.self)!
                var nearest = top
                for _ in 1..<levels { nearest = Container(parent: nearest) }
                return .serial { [nearest] count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: Container(parent: nearest).resolve(Store.self)!) }
                    return sink
                }
            })
    }

    /// The loop of Dirk's leaves under `nearest`, which each registers as its parent under
    /// `nearest`'s own type.
    private static func dirkLoop<Nearest: Component>(nearest: Nearest) -> Workload {
        .serial { count in
            var sink: UInt = 0
            for _ in 0..<count {
                // Held in a constant: modules do not keep their component alive.
                let leaf = LeafComponent().parent(nearest)
                sink &+= bits(of: leaf.top.data.store())
            }
            return sink
        }
    }
}
