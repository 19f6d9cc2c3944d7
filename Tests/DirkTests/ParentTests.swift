import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Parents")
struct ParentTests {
    @Test("a child reaches its parent's providers, which cache in the parent")
    func childUsesParent() {
        let app = RootComponent()
        let feature = LeafComponent().parent(app)
        #expect(feature.app === app)
        #expect(feature.leaf.viewModel().store === app.root.store())
    }

    @Test("a component may have several parents of different types")
    func severalParents() {
        let app = RootComponent()
        let session = MiddleComponent().parent(app)
        let other = SideComponent()
        let feature = LeafComponent().parent(session).parent(other)
        #expect(feature.session === session)
        #expect(feature.side === other)
    }

    @Test("a child holds each of several parents once: they go with it, and no sooner")
    func severalParentsGoWithTheChild() {
        weak var app: RootComponent?
        weak var session: MiddleComponent?
        weak var side: SideComponent?
        var feature: LeafComponent? = LeafComponent()
            .parent(RootComponent())
            .parent(MiddleComponent())
            .parent(SideComponent())
        (app, session, side) = (feature?.app, feature?.session, feature?.side)
        #expect(app != nil && session != nil && side != nil, "the child keeps its parents alive")
        #expect(feature?.leaf.viewModel().store === app?.root.store())
        feature = nil
        #expect(app == nil && session == nil && side == nil, "the parents go with the child")
    }

    @Test("parent() searches the parents' ancestors, nearest first")
    func ancestorsNearestFirst() {
        let far = RootComponent()
        let near = RootComponent()
        let session = MiddleComponent().parent(far)
        let feature = LeafComponent().parent(session)
        #expect(feature.app === far)
        let closer = LeafComponent().parent(session).parent(near)
        #expect(closer.app === near)
    }

    @Test("a parent registered as a base type is found by that type, and a subclass by its base")
    func parentBySubclassOrBase() {
        let fake = FakeRootComponent()
        let explicit = LeafComponent().parent(fake, as: RootComponent.self)
        #expect(explicit.app === fake)
        let inferred = LeafComponent().parent(fake)
        #expect(inferred.app === fake)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a missing parent traps naming both components and the fix")
    func missingParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let feature = LeafComponent().parent(SideComponent())
            _ = feature.app
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: `LeafComponent` has no parent of type `RootComponent`"))
        #expect(
            message.contains(
                "It searched its ancestors, nearest first: `SideComponent` (its parents given from DirkTests/ParentTests.swift:"
            ))
        #expect(message.contains("Register one on the new `LeafComponent` when you build it"))
        #expect(message.contains("`.parent(rootComponent)`"))
    }

    @Test("two parents of one type trap")
    func duplicateParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LeafComponent().parent(RootComponent()).parent(RootComponent())
        }
        #expect(standardError(of: result).contains("already has a parent registered as `RootComponent`"))
    }

    @Test("a component cannot become its own ancestor")
    func parentCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = RootComponent()
            let session = MiddleComponent().parent(app)
            app.parent(session)
        }
        #expect(
            standardError(of: result).contains("`MiddleComponent` cannot become a parent of `RootComponent`"))
    }
    #endif

    @Test("the check for a cycle visits a shared ancestor once, however many paths lead to it")
    func cycleCheckVisitsSharedAncestorsOnce() {
        // Forty levels of two components, each a child of both components of the level above:
        // 2^40 paths from the bottom to the top. Giving the bottom, as a parent, to a component
        // that has children walks them all unless each ancestor is visited once.
        let checks = OffThreadChecks()
        withWatchdog {
            var pair = (LatticeLeft(), LatticeRight())
            for _ in 0..<40 {
                let above = pair
                pair = (
                    LatticeLeft().parent(above.0, as: LatticeLeft.self).parent(
                        above.1, as: LatticeRight.self),
                    LatticeRight().parent(above.0, as: LatticeLeft.self).parent(
                        above.1, as: LatticeRight.self)
                )
            }
            let bottom = pair.0
            let joined = LatticeLeft()
            _ = LeafComponent().parent(joined)
            joined.parent(bottom, as: LatticeLeft.self)
            checks.check(joined.left === bottom, "the joined component's parent is not the bottom")
        }
        checks.expectNone()
    }

    @Test("a parent registered while a search walks the parents is found: the search starts again")
    func parentRegisteredDuringASearchIsFound() {
        // The search finds `fake`, which merely is a `RootComponent`; while it walks, after it has
        // read every parent, a parent registered as `RootComponent` arrives, which is as near and
        // wins. Registered before the search kept its answer, it is allowed, and must be found.
        let fake = FakeRootComponent()
        let root = RootComponent()
        let leaf = LeafComponent().parent(fake).parent(SideComponent())
        var isRegistered = false
        let found = leaf.searchedAncestor(
            RootComponent.self,
            matching: { candidate in
                if candidate is SideComponent && !isRegistered {
                    isRegistered = true
                    leaf.parent(root, as: RootComponent.self)
                }
                return candidate is RootComponent
            }, file: #fileID, line: #line)
        #expect(isRegistered)
        #expect(found === root)
        #expect(leaf.app === root)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("two components that register each other as parents at once: one of them traps")
    func crossedParentRegistrationsTrap() async {
        // Each registration marks the new parent as having children and then checks its own
        // component, so of two that close a cycle together at least one sees the other, however
        // they interleave. The hook holds both registrations after they appended and read their
        // own marks, before either checks for a cycle: the interleaving in which a lost mark lets
        // both pass. Nothing else runs in the child, so a registration that does not trap ends it
        // with success, which fails the test.
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let middle = MiddleComponent()
            let side = SideComponent()
            let appended = LockedBox(0)
            onThreads(2) { index in
                let bothAppended = {
                    appended.withLock { $0 += 1 }
                    while appended.withLock({ $0 }) < 2 { sched_yield() }
                }
                if index == 0 {
                    middle.register(side, as: SideComponent.self, afterAppending: bothAppended)
                } else {
                    side.register(middle, as: MiddleComponent.self, afterAppending: bothAppended)
                }
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("cannot become a parent of"), "\(message)")
        #expect(!message.contains("watchdog:"), "\(message)")
    }

    @Test("a parent registered after an ancestor search traps")
    func lateParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let session = MiddleComponent().parent(RootComponent())
            let feature = LeafComponent().parent(session)
            _ = feature.app
            feature.parent(SideComponent())
        }
        #expect(
            standardError(of: result).contains(
                "gained the parent `SideComponent` after a parent lookup had searched its parents"))
    }

    @Test("a parent registered on a branch where a search found nothing traps: it could change the answer")
    func lateParentOnAnEmptyBranchTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // The leaf finds a `RootComponent` through `session`, where it merely is one; `side`
            // has none. A root registered as `RootComponent` on `side` would be as near and win.
            let session = MiddleComponent().parent(FakeRootComponent())
            let side = SideComponent()
            let feature = LeafComponent().parent(session).parent(side)
            _ = feature.app
            side.parent(RootComponent(), as: RootComponent.self)
        }
        #expect(
            standardError(of: result).contains(
                "`SideComponent` gained the parent `RootComponent` after a parent lookup had searched its parents"
            ))
    }
    #endif
}

// MARK: Fixtures

final class Store: Sendable {}

final class ViewModel: Sendable {
    let store: Store

    init(store: Store) {
        self.store = store
    }
}

class RootComponent: Component, @unchecked Sendable {
    var root: RootModule { module() }
}

final class FakeRootComponent: RootComponent, @unchecked Sendable {}

class RootModule: Module<RootComponent> {
    func store() -> Store { single { Store() } }
}

final class MiddleComponent: Component, @unchecked Sendable {
    var app: RootComponent { parent() }
}

final class SideComponent: Component, @unchecked Sendable {}

final class LatticeLeft: Component, @unchecked Sendable {
    var left: LatticeLeft { parent() }
}

final class LatticeRight: Component, @unchecked Sendable {}

final class LeafComponent: Component, @unchecked Sendable {
    var app: RootComponent { parent() }
    var session: MiddleComponent { parent() }
    var side: SideComponent { parent() }
    var leaf: LeafModule { module() }
}

class LeafModule: Module<LeafComponent> {
    func viewModel() -> ViewModel { transient { c in ViewModel(store: c.app.root.store()) } }
}
