import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// A cycle through `configure:` that two threads resolve at once is broken by one thread taking
/// the other's half-configured instance. If that instance's `configure:` then throws, the instance
/// is dropped, and the thread that took it must not return or cache what refers to it.
@Suite("A throwing configure: in a cycle across threads")
struct ThrowingConfigureAcrossThreadsTests {
    @Test(
        "a thread that took an instance whose configure: then threw returns nothing that refers to it: its call throws the same error"
    )
    func borrowerThrows() throws {
        // `b()` once a's thread runs a's `configure:`; b's `configure:` goes on once a's thread
        // waits for `b`, so that b's thread takes the half-configured `a` (see `CrossComponent`).
        var attempt:
            (component: CrossComponent, a: Result<CrossNode, any Error>, b: Result<CrossNode, any Error>)?
        for _ in 0..<CrossComponent.attempts {
            let component = CrossComponent()
            let (a, b) = onTwoThreads(
                { try component.cross.a() }, thenOnceSignalled: component.aIsConfiguring,
                { try component.cross.b() })
            attempt = (component, a, b)
            if component.bTookAHalfConfigured.withLock({ $0 }) { break }
        }
        let (component, a, b) = try #require(attempt)
        #expect(throws: CrossFailure.self) { try a.get() }
        #expect(throws: CrossFailure.self, "b() returned an instance that refers to a dropped `a`") {
            try b.get()
        }
        try #require(component.bTookAHalfConfigured.withLock { $0 }, "b's thread took the half-configured a")
        // Nothing was cached: the next calls build both again, and configure them.
        let newA = try component.cross.a()
        let newB = try component.cross.b()
        #expect(newA.partner === newB && newB.partner === newA)
        #expect(newA.isConfigured && newB.isConfigured)
    }

    @Test("a test hook's call whose resolution took such an instance throws the failure: it returns nothing")
    func hookThrows() throws {
        // As in `borrowerThrows`, with b's call nested in the hook, which is the outermost call of
        // its resolution. A hook that threw to a caller expecting no error handed back garbage.
        var attempt: (component: CrossComponent, hook: Result<CrossNode??, any Error>)?
        for _ in 0..<CrossComponent.attempts {
            let component = CrossComponent()
            let (_, hook) = onTwoThreads(
                { try component.cross.a() }, thenOnceSignalled: component.aIsConfiguring,
                { try component.ifAdmitted { try? component.cross.b() } })
            attempt = (component, hook)
            if component.bTookAHalfConfigured.withLock({ $0 }) { break }
        }
        let (component, hook) = try #require(attempt)
        try #require(component.bTookAHalfConfigured.withLock { $0 }, "b's thread took the half-configured a")
        #expect(throws: ResolutionEndFailure.self, "the hook returned what may refer to a dropped `a`") {
            try hook.get()
        }
    }

    @Test(
        "a thread that took an instance built inside a configure: that then threw returns nothing that refers to it"
    )
    func borrowerOfNestedBuildThrows() throws {
        let component = ThrowingNestingComponent()
        // `z()` once x's thread has built y, inside x's `configure:`.
        let (x, z) = onTwoThreads(
            { try component.nesting.x() }, thenOnceSignalled: component.yIsBuilt,
            { try component.nesting.z() })
        #expect(throws: CrossFailure.self) { try x.get() }
        #expect(throws: CrossFailure.self, "z() returned an instance that refers to y, and y to a dropped x")
        {
            try z.get()
        }
        // Nothing that refers to the dropped x was cached: the next calls build all three again.
        let newX = try component.nesting.x()
        let newZ = try component.nesting.z()
        #expect(newX.unconfiguredReach == [] && newZ.unconfiguredReach == [])
        withExtendedLifetime(component) {}
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a provider that throws nothing and whose resolution took such an instance stops with the reason")
    func nonThrowingBorrowerStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            // `holder()`'s thread takes `a`, as in `borrowerThrows`, which stops the program. A try
            // that ends is one where a's thread took the half-configured `b` instead (see
            // `CrossComponent`): nothing to stop for, so it tries again.
            for _ in 0..<CrossComponent.attempts {
                let component = CrossComponent()
                onThreads(2) { index in
                    if index == 0 {
                        _ = try? component.cross.a()
                    } else {
                        component.aIsConfiguring.wait()
                        _ = component.cross.holder()
                    }
                }
            }
        }
        let message = standardError(of: result)
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/ThrowingConfigureAcrossThreadsTests.swift:"), "reported at \(trap)")
        #expect(message.contains("Dirk: `CrossModule.holder()` of `CrossComponent`"), "\(message)")
        #expect(message.contains("its resolution took an instance from another thread"))
        #expect(message.contains("the `configure:` of `CrossModule.a()` of `CrossComponent`"))
        #expect(message.contains("CrossFailure"))
        #expect(message.contains("Let `CrossModule.holder()` throw the error"))
    }

    @Test("a handle whose resolution took such an instance stops with the reason, and the fix for a handle")
    func handleStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            // As in `nonThrowingBorrowerStops`, until the handle's thread takes `a`.
            for _ in 0..<CrossComponent.attempts {
                let component = CrossComponent()
                let handle = component.provider { try? $0.cross.b() }
                onThreads(2) { index in
                    if index == 0 {
                        _ = try? component.cross.a()
                    } else {
                        component.aIsConfiguring.wait()
                        _ = handle()
                    }
                }
            }
        }
        let message = standardError(of: result)
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/ThrowingConfigureAcrossThreadsTests.swift:"), "reported at \(trap)")
        #expect(message.contains("Dirk: `Provider<Optional<CrossNode>>`"), "\(message)")
        #expect(message.contains("cannot return its value"))
        #expect(message.contains("Call the provider with `try` instead of through the handle"))
    }
    #endif
}

struct CrossFailure: Error {}

extension LockedBox where Value == Int {
    /// Counts one more attempt; returns whether it is the first.
    func isFirstAttempt() -> Bool {
        withLock {
            $0 += 1
            return $0 == 1
        }
    }
}

/// Runs `first` on one thread and, once `signal` is signalled, `second` on another, under a
/// watchdog; returns what each returned or threw, or `Unfinished` for one still running when the
/// watchdog's time was up (which the watchdog records as a failure of the test).
func onTwoThreads<First, Second>(
    _ first: @escaping @Sendable () throws -> First, thenOnceSignalled signal: DispatchSemaphore,
    _ second: @escaping @Sendable () throws -> Second
) -> (first: Result<First, any Error>, second: Result<Second, any Error>) {
    let firstResult = LockedBox<Result<First, any Error>?>(nil)
    let secondResult = LockedBox<Result<Second, any Error>?>(nil)
    withWatchdog {
        onThreads(2) { index in
            if index == 0 {
                let result = Result { try first() }
                firstResult.withLock { $0 = result }
            } else {
                signal.wait()
                let result = Result { try second() }
                secondResult.withLock { $0 = result }
            }
        }
    }
    return (
        firstResult.withLock { $0 } ?? .failure(Unfinished()),
        secondResult.withLock { $0 } ?? .failure(Unfinished())
    )
}

/// What a thread that was still running when its watchdog's time was up returned.
struct Unfinished: Error {}

final class CrossNode: @unchecked Sendable {
    /// Weak: the component keeps both nodes, which would otherwise form a retain cycle.
    weak var partner: CrossNode?
    var isConfigured = false
}

/// Holds what `b()` gave, if anything.
final class CrossHolder: Sendable {
    let b: CrossNode?
    init(b: CrossNode?) { self.b = b }
}

final class CrossComponent: Component, @unchecked Sendable {
    /// How many times a test runs the scenario until b's thread takes the half-configured `a`.
    ///
    /// Either thread may break the cycle of waits. b's `configure:` goes on once insight shows a's
    /// thread waiting for `b`, and a thread records what it waits for before it joins a build's
    /// waiters, so b's thread, asking for `a`, finds the cycle. But a's thread looks for it too, once
    /// it has joined; if that look comes late, a's thread takes the half-configured `b` as well, and
    /// if it is done before b's thread checks the chain a second time, b's thread waits instead:
    /// right too, but not the case these tests are about. A test tries again.
    static let attempts = 50

    let aIsConfiguring = DispatchSemaphore(value: 0)
    let bIsConfiguring = DispatchSemaphore(value: 0)
    let attempts = LockedBox(0)
    let bAttempts = LockedBox(0)
    /// Whether `b()`'s `configure:` got `a` before a's `configure:` finished.
    let bTookAHalfConfigured = LockedBox(false)
    var cross: CrossModule { module() }
}

/// `a` and `b` refer to each other through `configure:`; `a`'s first `configure:` throws after
/// it has `b`. Each thread starts at one end: `a`'s thread lets `b`'s start once it configures `a`,
/// and waits for `b`, which `b`'s thread configures; `b`'s first `configure:` goes on only once
/// `a`'s thread waits for `b`, so that `b`'s thread, asking for `a`, closes the cycle and takes
/// the half-configured `a`.
final class CrossModule: Module<CrossComponent> {
    func a() throws -> CrossNode {
        try single(
            { CrossNode() },
            configure: { a, c in
                let isFirst = c.attempts.isFirstAttempt()
                if isFirst {
                    c.aIsConfiguring.signal()
                    c.bIsConfiguring.wait()
                }
                a.partner = try c.cross.b()
                if isFirst { throw CrossFailure() }
                a.isConfigured = true
            })
    }

    func b() throws -> CrossNode {
        try single(
            { CrossNode() },
            configure: { b, c in
                c.bIsConfiguring.signal()
                if c.bAttempts.isFirstAttempt() { c.waitForWaiter(on: "CrossModule.b()") }
                let a = try c.cross.a()
                if !a.isConfigured { c.bTookAHalfConfigured.withLock { $0 = true } }
                b.partner = a
                b.isConfigured = true
            })
    }

    func holder() -> CrossHolder {
        single { c in CrossHolder(b: try? c.cross.b()) }
    }
}

final class ThrowingNestingComponent: Component, @unchecked Sendable {
    let yIsBuilt = DispatchSemaphore(value: 0)
    let zIsConfiguring = DispatchSemaphore(value: 0)
    let attempts = LockedBox(0)
    let zAttempts = LockedBox(0)
    var nesting: ThrowingNestingModule { module() }
}

/// `x`'s first `configure:` builds `y`, which refers to `x` half-configured, then needs `z`, which
/// another thread is configuring and which needs `y`: that thread takes `y`. Then `x`'s
/// `configure:` throws, dropping `x` and `y` with it.
final class ThrowingNestingModule: Module<ThrowingNestingComponent> {
    func x() throws -> Linked {
        try single(
            { Linked("x", isConfigured: false) },
            configure: { x, c in
                let isFirst = c.attempts.isFirstAttempt()
                x.link(try c.nesting.y())
                if isFirst {
                    c.yIsBuilt.signal()
                    c.zIsConfiguring.wait()
                }
                x.link(try c.nesting.z())
                if isFirst {
                    // Throws once the other thread, which took `y`, has returned from `z()` and
                    // waits for x's `configure:` at its resolution's end.
                    c.waitForWaiter(on: "ThrowingNestingModule.x()")
                    throw CrossFailure()
                }
                x.isConfigured = true
            })
    }

    func y() throws -> Linked {
        try single { c in
            let y = Linked("y", isConfigured: true)
            y.link(try c.nesting.x())
            return y
        }
    }

    func z() throws -> Linked {
        try single(
            { Linked("z", isConfigured: false) },
            configure: { z, c in
                c.zIsConfiguring.signal()
                // Goes on once x's thread waits for `z`, so that asking for `y` closes the cycle.
                if c.zAttempts.isFirstAttempt() { c.waitForWaiter(on: "ThrowingNestingModule.z()") }
                z.link(try c.nesting.y())
                z.isConfigured = true
            })
    }
}

/// The shapes that a first version of the fix missed (found in review): what a resolution held
/// before it took the failing instance, and a waiter for what it held.
@Suite("A throwing configure: in a cycle across threads: what else the taking thread held")
struct ThrowingConfigureHeldBuildsTests {
    @Test(
        "a build held inside a configure: whose instance then took the failing one is dropped too, though held before the taking"
    )
    func heldBeforeTheTaking() throws {
        let component = EarlierComponent()
        let (x, z) = onTwoThreads(
            { try component.m.x() }, thenOnceSignalled: component.yIsBuilt, { try component.m.z() })
        #expect(throws: CrossFailure.self) { try x.get() }
        #expect(throws: CrossFailure.self) { try z.get() }
        // `y`, built inside x's first `configure:`, refers to that dropped x: it was dropped too.
        let newX = try component.m.x()
        let y = try component.m.y()
        #expect(
            y.refs.first ?? nil === newX, "the cached y refers to a dropped x: two instances of one single")
    }

    @Test(
        "a build held after a configure: that threw and took its held builds with it is dropped when an instance taken before then fails",
        arguments: [true, false])
    func heldAfterAnEarlierDrop(aHoldsABuild: Bool) throws {
        let component = StaleComponent(aHoldsABuild: aHoldsABuild)
        let (outer, x) = onTwoThreads(
            { try component.m.outer() }, thenOnceSignalled: component.aIsConfiguring, { try component.m.x() })
        #expect(throws: CrossFailure.self) { try outer.get() }
        #expect(throws: CrossFailure.self) { try x.get() }
        let w = try component.m.w()
        let newX = try component.m.x()
        #expect(w.scoped.x.isConfigured, "the cached w refers to a dropped, unconfigured x")
        #expect(w.scoped.x === newX, "two instances of one single x")
    }

    @Test(
        "a thread waiting for a build dropped with another's failure builds it anew, and gets no foreign error"
    )
    func waiterOfADroppedBuild() throws {
        let component = BystanderComponent()
        let top = LockedBox<Result<BystanderTop, any Error>?>(nil)
        let k = LockedBox<BystanderNode?>(nil)
        withWatchdog {
            onThreads(3) { index in
                switch index {
                case 0:
                    let result = Result { try component.m.top() }
                    top.withLock { $0 = result }
                case 1:
                    component.aIsConfiguring.wait()
                    _ = try? component.m.x()
                default:
                    component.kIsHeld.wait()
                    let node = component.m.k()
                    k.withLock { $0 = node }
                }
            }
        }
        #expect(throws: CrossFailure.self) { try top.withLock { $0 }?.get() }
        let waited = try #require(k.withLock { $0 })
        #expect(waited === component.m.k(), "the waiter's k is the one cached")
    }
}

/// What a `configure:` that throws takes with it on its own thread, and what a waiter of that gets.
@Suite("A throwing configure: drops what may refer to its instance")
struct ThrowingConfigureDropTests {
    @Test("a thread waiting for a build that a throwing configure: dropped builds it anew, and gets no error")
    func waiterOfADroppedBuildBuildsAnew() throws {
        let component = DroppedWaitComponent()
        let (owner, dependency) = onTwoThreads(
            { try component.m.owner() }, thenOnceSignalled: component.dependencyIsBuilt,
            { component.m.dependency() })
        #expect(throws: CrossFailure.self) { try owner.get() }
        // Built inside the `configure:` that threw, the first dependency was dropped with it: its
        // own factory did not fail, so the waiting thread built another, which is the one cached.
        let waited = try dependency.get()
        #expect(waited === component.m.dependency())
        #expect(component.dependencies.withLock { $0 } == 2)
        #expect(try component.m.owner().dependency === waited)
    }

    @Test("a scoped factory still running when a configure: inside it throws keeps its own instance")
    func enclosingScopedFactoryKeepsItsInstance() throws {
        let component = EnclosingScopedComponent()
        let outer = component.m.outer()
        let holder = try #require(outer.link)
        #expect(holder === outer.partner, "one holder per resolution")
        // `p`'s first `configure:` built an `s` and threw; `holder` asked for `s` again.
        #expect(component.sBuilds.withLock { $0 } == 2)
        #expect(holder.other == nil)
    }

    @Test("in an async resolution too, a scoped instance built inside a configure: that throws is built anew")
    func scopedInstanceOfAThrowingConfigureInAnAsyncResolution() async throws {
        let component = ScopedDropComponent()
        let host = AsyncHostComponent()
        let outer = try await host.m.outer(of: component)
        #expect(outer.scoped.p === outer.p, "the cached outer refers, through s, to a dropped p")
    }

    @Test(
        "a scoped instance built inside a configure: that throws is built anew when the resolution asks again"
    )
    func scopedInstanceOfAThrowingConfigure() throws {
        let component = ScopedDropComponent()
        let outer = try component.m.outer()
        #expect(outer.scoped.p === outer.p, "the cached outer refers, through s, to a dropped p")
        let p = try component.m.p()
        #expect(outer.p === p)
    }
}

final class DroppedWaitDependency: Sendable {}

final class DroppedWaitOwner: @unchecked Sendable {
    var dependency: DroppedWaitDependency?
}

final class DroppedWaitComponent: Component, @unchecked Sendable {
    let dependencyIsBuilt = DispatchSemaphore(value: 0)
    let attempts = LockedBox(0)
    let dependencies = LockedBox(0)
    var m: DroppedWaitModule { module() }
}

/// The owner's first `configure:` builds `dependency`, which is held until the resolution ends,
/// and then throws, while another thread waits for `dependency`.
final class DroppedWaitModule: Module<DroppedWaitComponent> {
    func owner() throws -> DroppedWaitOwner {
        try single(
            { DroppedWaitOwner() },
            configure: { owner, c in
                let isFirst = c.attempts.isFirstAttempt()
                owner.dependency = c.m.dependency()
                if isFirst {
                    c.dependencyIsBuilt.signal()
                    // Throws once the other thread waits for `dependency`, so that the drop wakes
                    // it; a thread that came after the drop would just build, proving nothing.
                    c.waitForWaiter(on: "DroppedWaitModule.dependency()")
                    throw CrossFailure()
                }
            })
    }

    func dependency() -> DroppedWaitDependency {
        single { c in
            c.dependencies.withLock { $0 += 1 }
            return DroppedWaitDependency()
        }
    }
}

final class EnclosingScopedNode: @unchecked Sendable {
    var link: EnclosingScopedNode?
    var partner: EnclosingScopedNode?
    var other: EnclosingScopedNode?
    var back: EnclosingScopedNode?
}

final class EnclosingScopedComponent: Component, @unchecked Sendable {
    let attempts = LockedBox(0)
    let sBuilds = LockedBox(0)
    var m: EnclosingScopedModule { module() }
}

/// `holder()`, a `scoped` factory, calls `p()`, whose first `configure:` builds the `scoped` `s`
/// and throws while `holder()`'s factory still runs. Three other `scoped` instances come first, so
/// that the resolution's list of them reaches past its inline places.
final class EnclosingScopedModule: Module<EnclosingScopedComponent> {
    func outer() -> EnclosingScopedNode {
        single(
            { EnclosingScopedNode() },
            configure: { outer, c in
                _ = c.m.first()
                _ = c.m.second()
                _ = c.m.third()
                outer.link = c.m.holder()
                outer.partner = c.m.holder()
            })
    }

    func first() -> EnclosingScopedNode { scoped { EnclosingScopedNode() } }
    func second() -> EnclosingScopedNode { scoped { EnclosingScopedNode() } }
    func third() -> EnclosingScopedNode { scoped { EnclosingScopedNode() } }

    func holder() -> EnclosingScopedNode {
        scoped { c in
            let holder = EnclosingScopedNode()
            holder.other = try? c.m.p()
            holder.back = c.m.s()
            return holder
        }
    }

    func p() throws -> EnclosingScopedNode {
        try single(
            { EnclosingScopedNode() },
            configure: { p, c in
                let isFirst = c.attempts.isFirstAttempt()
                p.back = c.m.s()
                if isFirst { throw CrossFailure() }
            })
    }

    func s() -> EnclosingScopedNode {
        scoped { c in
            c.sBuilds.withLock { $0 += 1 }
            return EnclosingScopedNode()
        }
    }
}

final class AsyncHostComponent: Component, @unchecked Sendable {
    var m: AsyncHostModule { module() }
}

final class AsyncHostModule: Module<AsyncHostComponent> {
    /// Resolves `other`'s `outer()` as part of this async resolution.
    func outer(of other: ScopedDropComponent) async throws -> ScopedDropOuter {
        try await transient { _ in
            await Task.yield()
            return try other.m.outer()
        }
    }
}

final class ScopedDropP: @unchecked Sendable {
    var scoped: ScopedDropS?
}

// `@unchecked`: `p` is written once, in `init` (a `weak let`, which Swift 6.0 does not have).
final class ScopedDropS: @unchecked Sendable {
    private(set) weak var p: ScopedDropP?
    init(p: ScopedDropP) { self.p = p }
}

final class ScopedDropOuter: Sendable {
    let scoped: ScopedDropS
    let p: ScopedDropP
    init(scoped: ScopedDropS, p: ScopedDropP) {
        self.scoped = scoped
        self.p = p
    }
}

final class ScopedDropComponent: Component, @unchecked Sendable {
    let attempts = LockedBox(0)
    var m: ScopedDropModule { module() }
}

/// `p`'s first `configure:` builds the `scoped` `s`, which refers to `p` half-configured, and then
/// throws; `outer()` goes on without `p`, and asks for `p` and `s` again.
final class ScopedDropModule: Module<ScopedDropComponent> {
    func p() throws -> ScopedDropP {
        try single(
            { ScopedDropP() },
            configure: { p, c in
                let isFirst = c.attempts.isFirstAttempt()
                let scoped = try c.m.s()
                if isFirst { throw CrossFailure() }
                p.scoped = scoped
            })
    }

    func s() throws -> ScopedDropS { try scoped { c in ScopedDropS(p: try c.m.p()) } }

    func outer() throws -> ScopedDropOuter {
        try single { c in
            _ = try? c.m.p()
            // `p` first: its `configure:` asks for `s`, which is built anew and refers to it.
            let p = try c.m.p()
            return ScopedDropOuter(scoped: try c.m.s(), p: p)
        }
    }
}

final class EarlierNode: @unchecked Sendable {
    /// Weak: the component keeps the nodes.
    struct Reference {
        weak var node: EarlierNode?
    }

    private var references: [Reference] = []
    var refs: [EarlierNode?] { references.map(\.node) }
    func refer(to node: EarlierNode) { references.append(Reference(node: node)) }
}

final class EarlierComponent: Component, @unchecked Sendable {
    let yIsBuilt = DispatchSemaphore(value: 0)
    let zIsConfiguring = DispatchSemaphore(value: 0)
    let xAttempts = LockedBox(0)
    let zAttempts = LockedBox(0)
    var m: EarlierModule { module() }
}

/// x's first `configure:` builds y, which refers to x half-configured, then takes z from the other
/// thread; z's first `configure:` then throws.
final class EarlierModule: Module<EarlierComponent> {
    func x() throws -> EarlierNode {
        try single(
            { EarlierNode() },
            configure: { x, c in
                let isFirst = c.xAttempts.isFirstAttempt()
                x.refer(to: try c.m.y())
                if isFirst {
                    c.yIsBuilt.signal()
                    c.zIsConfiguring.wait()
                    c.waitForWaiter(on: "EarlierModule.y()")
                    x.refer(to: try c.m.z())
                }
            })
    }

    func y() throws -> EarlierNode {
        try single { c in
            let y = EarlierNode()
            y.refer(to: try c.m.x())
            return y
        }
    }

    func z() throws -> EarlierNode {
        try single(
            { EarlierNode() },
            configure: { z, c in
                let isFirst = c.zAttempts.isFirstAttempt()
                if isFirst { c.zIsConfiguring.signal() }
                z.refer(to: try c.m.y())
                if isFirst { throw CrossFailure() }
            })
    }
}

final class StaleNode: @unchecked Sendable {
    var isConfigured = false
    var refs: [AnyObject] = []
}

final class StaleScoped: Sendable {
    let x: StaleNode
    init(x: StaleNode) { self.x = x }
}

final class StaleW: Sendable {
    let scoped: StaleScoped
    init(scoped: StaleScoped) { self.scoped = scoped }
}

final class StaleOuter: Sendable {
    let w: StaleW
    init(w: StaleW) { self.w = w }
}

final class StaleComponent: Component, @unchecked Sendable {
    let aIsConfiguring = DispatchSemaphore(value: 0)
    let xIsConfiguring = DispatchSemaphore(value: 0)
    let aAttempts = LockedBox(0)
    let xAttempts = LockedBox(0)
    let aHoldsABuild: Bool
    var m: StaleModule { module() }

    init(aHoldsABuild: Bool) {
        self.aHoldsABuild = aHoldsABuild
        super.init()
    }
}

/// `outer()` calls `a()`, whose first `configure:` holds `h` (if asked), takes `x` from the other
/// thread through the `scoped` `s`, and throws; `outer()` goes on without `a` and builds `w`, which
/// gets the same `s`, and so `x`, whose `configure:` then throws.
final class StaleModule: Module<StaleComponent> {
    func outer() throws -> StaleOuter {
        try single { c in
            _ = try? c.m.a()
            return StaleOuter(w: try c.m.w())
        }
    }

    func a() throws -> StaleNode {
        try single(
            { StaleNode() },
            configure: { a, c in
                let isFirst = c.aAttempts.isFirstAttempt()
                if c.aHoldsABuild { a.refs.append(c.m.h()) }
                if isFirst {
                    c.aIsConfiguring.signal()
                    c.xIsConfiguring.wait()
                    c.waitForWaiter(on: "StaleModule.a()")
                    a.refs.append(try c.m.s())
                    throw CrossFailure()
                }
                a.isConfigured = true
            })
    }

    func h() -> StaleNode { single { StaleNode() } }

    func s() throws -> StaleScoped { try scoped { c in StaleScoped(x: try c.m.x()) } }

    func w() throws -> StaleW { try single { c in StaleW(scoped: try c.m.s()) } }

    func x() throws -> StaleNode {
        try single(
            { StaleNode() },
            configure: { x, c in
                let isFirst = c.xAttempts.isFirstAttempt()
                if isFirst { c.xIsConfiguring.signal() }
                _ = try c.m.a()
                if isFirst { throw CrossFailure() }
                x.isConfigured = true
            })
    }
}

final class BystanderNode: @unchecked Sendable {
    var refs: [AnyObject] = []
}

final class BystanderTop: Sendable {
    let k: BystanderNode
    init(k: BystanderNode) { self.k = k }
}

final class BystanderComponent: Component, @unchecked Sendable {
    let aIsConfiguring = DispatchSemaphore(value: 0)
    let xIsConfiguring = DispatchSemaphore(value: 0)
    let kIsHeld = DispatchSemaphore(value: 0)
    let xAttempts = LockedBox(0)
    var m: BystanderModule { module() }
}

/// `top()` takes `x` from the other thread inside a's `configure:`, then holds `k`, which throws
/// nothing; a third thread waits for `k`, and then x's `configure:` throws.
final class BystanderModule: Module<BystanderComponent> {
    func top() throws -> BystanderTop {
        try single { c in
            _ = try c.m.a()
            return BystanderTop(k: c.m.k())
        }
    }

    func a() throws -> BystanderNode {
        try single(
            { BystanderNode() },
            configure: { a, c in
                c.aIsConfiguring.signal()
                c.xIsConfiguring.wait()
                c.waitForWaiter(on: "BystanderModule.a()")
                _ = try c.m.x()
            })
    }

    func k() -> BystanderNode { single { BystanderNode() } }

    func x() throws -> BystanderNode {
        try single(
            { BystanderNode() },
            configure: { x, c in
                let isFirst = c.xAttempts.isFirstAttempt()
                if isFirst { c.xIsConfiguring.signal() }
                _ = try c.m.a()
                if isFirst {
                    // Once top's thread holds `k`, lets the third thread ask for it, and throws
                    // once it waits.
                    c.waitForBuild(of: "BystanderModule.k()")
                    c.kIsHeld.signal()
                    c.waitForWaiter(on: "BystanderModule.k()")
                    throw CrossFailure()
                }
            })
    }
}

/// A `configure:` that cannot throw waits, on a's thread, for the factory of `host()`, which then
/// throws; meanwhile b's thread took the half-configured `a` to break a cycle of waits across the
/// two threads. The waiting closure still runs, so b's thread, whose `b()` throws nothing, returns.
@Suite("A configure: waiting for a factory that throws, whose instance another thread took")
struct WaitingConfigureOfAThrowingFactoryTests {
    @Test("the thread that took the instance returns, wired, and both instances stay cached")
    func takerReturns() throws {
        let component = HostComponent()
        // b's thread builds `b` first; a's thread, in `host()`'s factory, builds `a`, whose `configure:`
        // waits for that factory, then asks for `b`; b's factory asks for `a` once a's thread waits.
        let (b, host) = onTwoThreads(
            { component.hosting.b() }, thenOnceSignalled: component.bIsBuilding,
            { try component.hosting.host() })
        #expect(throws: HostFailure.self) { try host.get() }
        #expect(component.bTookAHalfConfigured.withLock { $0 }, "b's thread took the half-configured a")
        let taken = try b.get()
        let a = component.hosting.a()
        #expect(taken.partner === a && a.partner === taken, "b and a refer to each other")
        #expect(a.isConfigured, "a's configure: ran once host()'s factory had thrown")
        #expect(component.hosting.b() === taken, "b is cached")
        a.partner = nil
    }
}

struct HostFailure: Error {}

final class HostComponent: Component, @unchecked Sendable {
    let bIsBuilding = DispatchSemaphore(value: 0)
    let aIsHeld = DispatchSemaphore(value: 0)
    /// Whether `b()`'s factory got `a` before a's `configure:` had run.
    let bTookAHalfConfigured = LockedBox(false)
    var hosting: HostModule { module() }
}

final class HostModule: Module<HostComponent> {
    func host() throws(HostFailure) -> CrossNode {
        try transient { (c) throws(HostFailure) in
            _ = c.hosting.a()
            c.aIsHeld.signal()
            _ = c.hosting.b()
            throw HostFailure()
        }
    }

    func a() -> CrossNode {
        single {
            CrossNode()
        } configure: { a, c in
            a.partner = c.hosting.b()
            a.isConfigured = true
        }
    }

    func b() -> CrossNode {
        single { c in
            c.bIsBuilding.signal()
            c.aIsHeld.wait()
            c.waitForWaiter(on: "HostModule.b()")
            let (a, b) = (c.hosting.a(), CrossNode())
            c.bTookAHalfConfigured.withLock { $0 = !a.isConfigured }
            b.partner = a
            return b
        }
    }
}
