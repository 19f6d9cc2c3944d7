import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Thread safety")
struct ConcurrencyTests {
    @Test("single builds exactly once when many threads make the first call together")
    func singleBuildsOnceAcrossThreads() {
        for _ in 0..<50 {
            let component = GateComponent()
            let ids = LockedBox<Set<ObjectIdentifier>>([])
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                let thing = component.gates.slowSingle()
                ids.withLock { _ = $0.insert(ObjectIdentifier(thing)) }
            }
            #expect(component.built.count == 1)
            #expect(ids.withLock { $0.count } == 1)
        }
    }

    @Test("keyed singles and weak instances build once per key across threads")
    func keyedAndWeakBuildOnce() {
        // Repeated until rounds saw callers wait for a keyed build and for a weak one under way: a
        // round in which each build finished before the others asked proves nothing.
        var seen: Set<String> = []
        for _ in 0..<100 {
            let component = GateComponent()
            component.gates.watchesWaiters = true
            let held = LockedBox<[Thing]>([])
            DispatchQueue.concurrentPerform(iterations: 32) { index in
                // Neighbouring iterations, which the threads run at once, ask for the same key.
                let thing = component.gates.keyed(index / 8)
                let weak = component.gates.weakThing()
                held.withLock { $0 += [thing, weak] }
            }
            #expect(component.built.count == 5)
            #expect(Set(held.withLock { $0.map(ObjectIdentifier.init) }).count == 5)
            seen.formUnion(component.gates.sawWaiters.withLock { $0 })
            if seen.count == 2 { return }
        }
        Issue.record("callers waited only for \(seen) in 100 rounds")
    }

    @Test("threads resolving one scoped provider at once each get their own, shared within their resolution")
    func scopedPerThreadResolution() {
        let component = ScopedComponent()
        let pairs = LockedBox<[Pair]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            let pair = component.scopes.pair()
            pairs.withLock { $0.append(pair) }
        }
        let all = pairs.withLock { $0 }
        #expect(all.allSatisfy { $0.left === $0.right && $0.left === $0.nested.context })
        #expect(
            Set(all.map { ObjectIdentifier($0.left) }).count == all.count, "no resolution shares another's")
    }

    @Test("many tasks resolving at once get one instance per single")
    func tasksShareSingles() async {
        // Repeated until a round saw a task wait for the build under way: a round in which the
        // builder finished before the others asked proves nothing.
        for _ in 0..<100 {
            let component = GateComponent()
            component.gates.watchesWaiters = true
            let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<200 { group.addTask { ObjectIdentifier(component.gates.slowSingle()) } }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(component.built.count == 1)
            if !component.gates.sawWaiters.withLock({ $0.isEmpty }) { return }
        }
        Issue.record("no task ever waited for the build under way in 100 rounds")
    }

    @Test("a provider being built blocks no unrelated provider: no global lock, no lock held in factories")
    func unrelatedProvidersDoNotWait() {
        let component = GateComponent()
        let other = GateComponent()
        withWatchdog {
            let gate = Gate()
            component.gates.gate = gate
            DispatchQueue.global().async { _ = component.gates.blocked() }
            gate.entered.wait()
            // `blocked()` is mid-construction and holds its factory open. Everything else,
            // in the same module, the same component and other components, proceeds.
            _ = component.gates.slowSingle()
            _ = component.gates.keyed(1)
            _ = component.gates.weakThing()
            _ = other.gates.blocked()
            gate.open()
        }
        #expect(component.gates.blocked() === component.gates.blocked())
    }

    @Test("threads that need an instance under construction wait for that one instance")
    func waitersShareTheInstance() {
        let component = GateComponent()
        let checks = OffThreadChecks()
        withWatchdog {
            let gate = Gate()
            component.gates.gate = gate
            let results = LockedBox<[ObjectIdentifier]>([])
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let thing = component.gates.blocked()
                results.withLock { $0.append(ObjectIdentifier(thing)) }
            }
            gate.entered.wait()
            for _ in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    let thing = component.gates.blocked()
                    results.withLock { $0.append(ObjectIdentifier(thing)) }
                }
            }
            // The gate opens only once all four wait for the build under way: otherwise they
            // could arrive after it and merely read the cache.
            component.waitUntil(4, areWaitingFor: "GateModule.blocked()")
            gate.open()
            group.wait()
            checks.check(Set(results.withLock { $0 }).count == 1, "callers got different instances")
        }
        checks.expectNone()
        #expect(component.blockedBuilds.count == 1)
    }

    @Test("parents and children resolved in opposite orders never deadlock")
    func oppositeOrdersDoNotDeadlock() {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<200 {
                let app = RootComponent()
                let feature = LeafComponent().parent(app)
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) {
                    _ = feature.leaf.viewModel()
                    _ = app.root.store()
                }
                DispatchQueue.global().async(group: group) {
                    _ = app.root.store()
                    _ = feature.leaf.viewModel()
                }
                group.wait()
                checks.check(feature.leaf.viewModel().store === app.root.store(), "a second store")
            }
        }
        checks.expectNone()
    }

    @Test("a configure cycle started from both ends on two threads completes")
    func configureCycleAcrossThreads() {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<200 {
                let component = CoupleComponent()
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) { _ = component.couple.husband() }
                DispatchQueue.global().async(group: group) { _ = component.couple.wife() }
                group.wait()
                let husband = component.couple.husband()
                let wife = component.couple.wife()
                checks.check(husband.partner === wife, "the husband's partner is another wife")
                checks.check(wife.partner === husband, "the wife's partner is another husband")
            }
        }
        checks.expectNone()
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("an acyclic graph resolved from two ends at once is never taken for a cycle")
    func acyclicGraphIsNoCycle() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // A hang ends in success too, but with the watchdog's line, which the check below sees.
            armExitTestWatchdog()
            for _ in 0..<300 {
                let component = GateComponent()
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) {
                    _ = component.gates.slowSingle()
                    _ = component.gates.dependent()
                }
                DispatchQueue.global().async(group: group) { _ = component.gates.dependent() }
                group.wait()
            }
        }
        let message = standardError(of: result)
        #expect(message.isEmpty, "\(message)")
    }

    @Test("a weak instance let go while insight reads its cache is deinitialized with no lock held")
    func weakInstanceGoesOutsideItsCacheLock() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // The graph reads each cache under its lock, a weak one's instance as a strong reference,
            // which is the last one if this thread lets the instance go meanwhile. The instance's
            // deinit reads the graph, which takes that cache's lock: under the lock, a debug build
            // would stop ("a thread took a lock it already holds") and a release build would hang.
            armExitTestWatchdog()
            let component = WeakProbeComponent()
            let stop = LockedBox(false)
            onThreads(2) { index in
                if index == 0 {
                    while !stop.withLock({ $0 }) { _ = component.dependencyGraph() }
                } else {
                    for _ in 0..<20_000 { _ = component.probes.probe() }
                    stop.withLock { $0 = true }
                }
            }
        }
        let message = standardError(of: result)
        #expect(message.isEmpty, "\(message)")
    }
    #endif

    @Test("an instance from a configure cycle across threads is configured before the outermost call returns")
    func configureFinishesBeforeReturn() {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<300 {
                let component = CoupleComponent()
                let group = DispatchGroup()
                let complete = LockedBox(true)
                DispatchQueue.global().async(group: group) {
                    let husband = component.couple.husband()
                    let linked = husband.partner?.partner === husband
                    complete.withLock { $0 = $0 && linked }
                }
                DispatchQueue.global().async(group: group) {
                    let wife = component.couple.wife()
                    let linked = wife.partner?.partner === wife
                    complete.withLock { $0 = $0 && linked }
                }
                group.wait()
                checks.check(complete.withLock { $0 }, "an instance returned before it was configured")
            }
        }
        checks.expectNone()
    }

    @Test(
        "a configure ring of three started from three threads hands out only configured instances, to its builders and to readers"
    )
    func configureRingAcrossThreads() {
        let complete = LockedBox(true)
        withWatchdog {
            for _ in 0..<100 {
                let component = RingComponent()
                onThreads(4) { index in
                    let node =
                        switch index {
                        case 0: component.ring.first()
                        case 1: component.ring.second()
                        default: component.ring.third()
                        }
                    let isComplete =
                        node.isConfigured && node.next?.isConfigured == true
                        && node.next?.next?.isConfigured == true
                    complete.withLock { $0 = $0 && isComplete }
                }
            }
        }
        #expect(
            complete.withLock { $0 }, "an instance of the ring was returned before the ring was configured")
    }

    @Test(
        "an instance built inside another's configure: is not handed to another thread before that one is configured",
        arguments: [Nesting.single, .scoped])
    func nestedHeldBuildWaitsForItsEnclosingConfiguration(x strategy: Nesting) {
        let component = NestingComponent(x: strategy)
        let reachedFromZ = LockedBox<[String]?>(nil)
        let reachedFromX = LockedBox<[String]?>(nil)
        withWatchdog {
            onThreads(2) { index in
                if index == 0 {
                    let x = component.nesting.x()
                    reachedFromX.withLock { $0 = x.unconfiguredReach }
                } else {
                    // Once x's thread has built y, inside x's `configure:`.
                    component.yIsBuilt.wait()
                    let z = component.nesting.z()
                    reachedFromZ.withLock { $0 = z.unconfiguredReach }
                }
            }
        }
        #expect(reachedFromX.withLock { $0 } == [])
        withExtendedLifetime(component) {}
        #expect(
            reachedFromZ.withLock { $0 } == [],
            "z() returned while it reached an instance still being configured")
    }

    @Test("components and modules cross tasks and actors")
    func componentsCrossIsolation() async {
        let component = GateComponent()
        let holder = ComponentHolder(component: component)
        let fromActor = await holder.resolve()
        let fromDetached = await Task.detached { component.gates.slowSingle() }.value
        let module = component.gates
        let fromModule = await Task.detached { module.slowSingle() }.value
        #expect(fromActor === fromDetached)
        #expect(fromModule === fromDetached)
    }
}

// MARK: Fixtures

actor ComponentHolder {
    let component: GateComponent

    init(component: GateComponent) {
        self.component = component
    }

    func resolve() -> ObjectIdentifierBox { ObjectIdentifierBox(component.gates.slowSingle()) }
}

/// A sendable wrapper so that a `Thing` can leave an actor.
final class ObjectIdentifierBox: @unchecked Sendable {
    let thing: Thing

    init(_ thing: Thing) {
        self.thing = thing
    }

    static func === (lhs: ObjectIdentifierBox, rhs: Thing) -> Bool { lhs.thing === rhs }
}

/// Reads its component's graph when it goes. (It holds the component strongly: a `weak` reference
/// would give the component a side table, which LeakSanitizer, seeing no pointer to it, reports
/// as a leak if the component outlives the exit test's body.)
final class WeakProbe: @unchecked Sendable {
    let component: WeakProbeComponent

    init(component: WeakProbeComponent) {
        self.component = component
    }

    deinit {
        _ = component.dependencyGraph()
    }
}

final class WeakProbeComponent: Component, @unchecked Sendable {
    var probes: WeakProbeModule { module() }
}

final class WeakProbeModule: Module<WeakProbeComponent> {
    func probe() -> WeakProbe { weak { c in WeakProbe(component: c) } }
}

final class GateComponent: Component, @unchecked Sendable {
    let built = Counter()
    let blockedBuilds = Counter()
    var gates: GateModule { module() }
}

class GateModule: Module<GateComponent> {
    nonisolated(unsafe) var gate: Gate?

    /// Set before the first call: whether builds record that callers waited for them.
    nonisolated(unsafe) var watchesWaiters = false
    /// The providers for which, at the end of a build, another caller waited for it.
    let sawWaiters = LockedBox<Set<String>>([])

    func slowSingle() -> Thing {
        single { c in
            c.built.increment()
            // Widen the window in which other threads arrive during construction.
            for _ in 0..<1_000 { _ = c.gates.inner() }
            c.gates.recordWaiters(of: "GateModule.slowSingle()", in: c, patience: 2)
            return Thing()
        }
    }

    /// When the test watches, keeps a build of the provider `name` under way until another caller
    /// waits for it, for at most `patience` seconds, and records whether one did. (Bounded: two
    /// builds on the two threads may each be waiting for the other thread.)
    private func recordWaiters(of name: String, in c: GateComponent, patience: Double = 0.2) {
        guard watchesWaiters else { return }
        let deadline = Date() + patience
        repeat {
            if (c.node(name)?.waitingCallers ?? 0) > 0 {
                sawWaiters.withLock { _ = $0.insert(name) }
                return
            }
            usleep(1_000)
        } while Date() < deadline
    }

    func inner() -> Thing { transient { Thing() } }
    func dependent() -> Thing { single { c in Thing(number: c.gates.slowSingle().number) } }
    func keyed(_ key: Int) -> Thing {
        single(key: key) { c in
            c.built.increment()
            c.gates.recordWaiters(of: "GateModule.keyed(_:)", in: c)
            return Thing()
        }
    }
    func weakThing() -> Thing {
        weak { c in
            c.built.increment()
            c.gates.recordWaiters(of: "GateModule.weakThing()", in: c)
            return Thing()
        }
    }

    func blockedKeyed(_ key: Int) -> Thing { single(key: key) { c in c.gates.buildBehindGate(c) } }
    func blocked() -> Thing { single { c in c.gates.buildBehindGate(c) } }

    /// Counts a build and holds it until the test opens the gate, if one is set.
    private func buildBehindGate(_ c: GateComponent) -> Thing {
        c.blockedBuilds.increment()
        c.gates.gate?.pass()
        return Thing()
    }
}

/// One of three instances that refer to each other in a ring, set in `configure:`.
final class RingNode: @unchecked Sendable {
    /// The next node, which the component keeps: weak, so that the ring is no retain cycle.
    weak var next: RingNode?
    /// Set last by `configure:`.
    var isConfigured = false
}

final class RingComponent: Component, @unchecked Sendable {
    var ring: RingModule { module() }
}

/// Three singles in a ring, each configured with the next; each `configure:` lingers before and
/// after it asks for the next, so that threads that start at different nodes overlap.
class RingModule: Module<RingComponent> {
    func first() -> RingNode { node { $0.ring.second() } }
    func second() -> RingNode { node { $0.ring.third() } }
    func third() -> RingNode { node { $0.ring.first() } }

    private func node(function: StaticString = #function, next: @escaping (RingComponent) -> RingNode)
        -> RingNode
    {
        single(
            { RingNode() },
            configure: { node, c in
                usleep(200)
                node.next = next(c)
                usleep(200)
                node.isConfigured = true
            }, function: function)
    }
}

/// An instance that refers to others and says whether its `configure:`, if any, has finished.
final class Linked: @unchecked Sendable {
    /// A reference to another instance, which the component keeps: weak, so that instances that
    /// refer to each other form no retain cycle.
    struct Link {
        weak var target: Linked?
    }

    let name: String
    private let state: LockedBox<(isConfigured: Bool, links: [Link])>

    init(_ name: String, isConfigured: Bool) {
        self.name = name
        state = LockedBox((isConfigured, []))
    }

    var isConfigured: Bool {
        get { state.withLock { $0.isConfigured } }
        set { state.withLock { $0.isConfigured = newValue } }
    }

    func link(_ other: Linked) {
        state.withLock { $0.links.append(Link(target: other)) }
    }

    /// The names of the instances this one reaches, itself included, that are not configured.
    var unconfiguredReach: [String] {
        var seen: Set<ObjectIdentifier> = []
        var pending = [self]
        var unconfigured: [String] = []
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            let (isConfigured, links) = next.state.withLock { ($0.isConfigured, $0.links) }
            if !isConfigured { unconfigured.append(next.name) }
            pending += links.compactMap(\.target)
        }
        return unconfigured
    }
}

final class NestingComponent: Component, @unchecked Sendable {
    let yIsBuilt = DispatchSemaphore(value: 0)
    let zIsConfiguring = DispatchSemaphore(value: 0)
    /// How `x` keeps its instance: a `scoped` one, in a synchronous resolution, is the resolution's
    /// own, but the `single` built inside its `configure:` can still reach another thread.
    let xStrategy: Nesting
    var nesting: NestingModule { module() }

    init(x strategy: Nesting) {
        xStrategy = strategy
        super.init()
    }
}

enum Nesting: String, Sendable, CustomTestStringConvertible {
    case single, scoped
    var testDescription: String { rawValue }
}

/// `x`'s `configure:` builds `y`, which refers to `x` half-configured, then needs `z`, which another
/// thread is configuring and which needs `y`: that thread takes `y` and must not return `z` before
/// `x` is configured.
class NestingModule: Module<NestingComponent> {
    func x() -> Linked {
        switch component.xStrategy {
        case .single: single({ Linked("x", isConfigured: false) }, configure: configureX)
        case .scoped: scoped({ Linked("x", isConfigured: false) }, configure: configureX)
        }
    }

    private func configureX(_ x: Linked, _ c: NestingComponent) {
        x.link(c.nesting.y())
        c.yIsBuilt.signal()
        c.zIsConfiguring.wait()
        x.link(c.nesting.z())
        // Goes on once the other thread, back from `z()`, waits for x's `configure:` at its
        // resolution's end. Insight shows that waiter for a `single` x; a `scoped` x is kept by
        // this thread's resolution, where insight does not look, so for it a pause must do.
        if c.xStrategy == .single {
            c.waitForWaiter(on: "NestingModule.x()")
        } else {
            usleep(100_000)
        }
        x.isConfigured = true
    }

    func y() -> Linked {
        single { c in
            let y = Linked("y", isConfigured: true)
            y.link(c.nesting.x())
            return y
        }
    }

    func z() -> Linked {
        single(
            { Linked("z", isConfigured: false) },
            configure: { z, c in
                c.zIsConfiguring.signal()
                // Goes on once x's thread waits for `z`, so that asking for `y` closes the cycle.
                c.waitForWaiter(on: "NestingModule.z()")
                z.link(c.nesting.y())
                z.isConfigured = true
            })
    }
}
