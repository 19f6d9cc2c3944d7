import Dirk
import DirkTestSupport
import Testing

@Suite("Strategies")
struct StrategyTests {
    @Test("single returns one instance per component, built on the first call")
    func singleIsOnePerComponent() {
        let component = TestComponent()
        #expect(component.counter.count == 0)
        let first = component.things.single()
        #expect(first === component.things.single())
        #expect(component.counter.count == 1)
        let other = TestComponent()
        #expect(first !== other.things.single())
    }

    @Test("transient returns a new instance on every call")
    func transientIsNewEachCall() {
        let component = TestComponent()
        #expect(component.things.transient() !== component.things.transient())
        #expect(component.counter.count == 2)
    }

    @Test("weak shares an instance while someone holds it and builds a new one after release")
    func weakFollowsTheHolders() {
        let component = TestComponent()
        var held: Thing? = component.things.weak()
        #expect(held === component.things.weak())
        #expect(component.counter.count == 1)
        held = nil
        let next = component.things.weak()
        #expect(next.number == 2)
        #expect(component.counter.count == 2)
    }

    @Test("scoped shares an instance within one outermost resolution, and not across")
    func scopedIsPerResolution() {
        let component = ScopedComponent()
        let pair = component.scopes.pair()
        #expect(pair.left === pair.right)
        #expect(pair.left === pair.nested.context)
        let next = component.scopes.pair()
        #expect(next.left !== pair.left)
        #expect(component.scopes.context() !== component.scopes.context())
    }

    @Test("a resolution's scoped instances are released when it ends, in every resolution of a thread")
    func scopedInstancesAreReleasedAtTheEnd() {
        let component = ScopedComponent()
        for _ in 0..<3 {
            weak var released: Context?
            do {
                let pair = component.scopes.pair()
                released = pair.left
                withExtendedLifetime(pair) { #expect(released != nil) }
            }
            #expect(released == nil, "nothing keeps a scoped instance after its resolution")
        }
    }

    @Test("a thread's scoped instances are released when each resolution ends, however many it made")
    func scopedInstancesAreReleasedInLongRuns() {
        let component = ScopedComponent()
        let kept = Counter()
        withWatchdog {
            // A new thread, whose resolutions are numbered from the start: past 32,768 and 65,536.
            onThreads(1) { _ in
                for _ in 0..<70_000 {
                    weak var released: Context?
                    do { released = component.scopes.pair().left }
                    if released != nil { kept.increment() }
                }
            }
        }
        #expect(kept.count == 0, "a scoped instance outlived its resolution \(kept.count) times")
    }

    @Test(
        "scoped instances of different components or modules never mix, even when slots are freed and reused")
    func scopedInstancesBelongToTheirSlot() {
        let component = ScopedComponent()
        let seen = component.scopes.temporaries()
        #expect(seen.first !== seen.second)
        // Modules made directly and released within the resolution: their slots go with them, and
        // the next module's slots could take the same address.
        let contexts = component.scopes.contextsOfReleasedModules()
        #expect(Set(contexts.map(ObjectIdentifier.init)).count == contexts.count)
    }

    @Test(
        "a scoped factory that throws inside a resolution keeps nothing, and the resolution's next call builds"
    )
    func scopedFailureWithinOneResolution() {
        let component = ScopedComponent()
        let (failed, retried, again) = component.scopes.retriedAfterFailure()
        #expect(failed, "the first build throws to its caller")
        #expect(retried === again, "the build after the failure is the resolution's instance")
        #expect(component.scopes.attempts.count == 2)
    }

    @Test("a scoped instance whose deinitializer resolves on its thread starts a resolution of its own")
    func scopedDeinitializerResolvesAgain() {
        let component = ScopedComponent()
        weak var first: ResolvingContext?
        do {
            let pair = component.scopes.resolvingPair()
            first = pair.left
            #expect(pair.left === pair.right)
        }
        #expect(first == nil, "the resolution released its instance")
        let seen = component.scopes.seenFromDeinitializer.withLock { $0 }
        #expect(seen.count == 1, "the deinitializer resolved once")
        #expect(seen.allSatisfy { $0 }, "it got a new instance, not the one being released")
        #expect(component.scopes.resolvingMade.count == 2)
    }

    @Test(
        "a scoped instance whose deinitializer resolves while its resolution ends gets none of the instances that resolution has yet to release"
    )
    func scopedDeinitializerSeesNoEndingInstances() {
        let component = ScopedComponent()
        weak var earlier: ResolvingContext?
        do {
            // `earlier` was asked for first and is released last; `later`'s instance, which only
            // the resolution holds, is released first, and its deinitializer asks for `earlier`'s
            // provider while `earlier` still waits to be released.
            earlier = component.scopes.earlierAndLater()
        }
        #expect(earlier == nil, "the resolution released the instance asked for first")
        let seen = component.scopes.seenByLater.withLock { $0 }
        #expect(seen.count == 1, "the deinitializer resolved once")
        #expect(
            seen.allSatisfy { $0 }, "it got a new instance, not the one its resolution had yet to release")
        #expect(component.scopes.fromLater.withLock { $0.made } == 1)
        #expect(
            component.scopes.fromLater.withLock { $0.instance } == nil,
            "its own resolution released the new instance")
    }

    @Test("a resolution releases its scoped instances in the order it asked for them")
    func scopedInstancesReleasedInOrder() {
        let component = ScopedComponent()
        component.scopes.releasedInOrder()
        #expect(component.scopes.releases.withLock { $0 } == [1, 2, 3])
    }

    @Test("a scoped provider whose factory threw builds again when called again in the same resolution")
    func scopedAfterAThrow() {
        let component = FlakyScopeComponent()
        let (first, second, third) = component.flaky.threeCalls()
        #expect(first == nil, "the first call throws")
        #expect(second != nil && second === third, "the second builds, and the third gets its instance")
    }

    @Test("single(key:) keeps one instance per key")
    func keyedSingleIsOnePerKey() {
        let component = TestComponent()
        let a = component.things.keyed("a")
        #expect(a === component.things.keyed("a"))
        #expect(a !== component.things.keyed("b"))
        #expect(component.counter.count == 2)
    }

    @Test(
        "a throwing factory reaches the caller, caches nothing, and the next call builds",
        arguments: Strategy.allCases)
    func throwingFactoryCachesNothing(strategy: Strategy) throws {
        let component = FlakyComponent()
        component.failures.store(1)
        #expect(throws: Flaky.self) { try component.flaky.thing(strategy) }
        let first = try component.flaky.thing(strategy)
        #expect(first.number == 1)
        #expect(component.attempts.count == 2)
    }

    @Test("factories without the component argument work for every strategy")
    func factoriesWithoutComponent() {
        let component = PlainComponent()
        #expect(component.plain.single() === component.plain.single())
        #expect(component.plain.transient() !== component.plain.transient())
        let held = component.plain.weak()
        #expect(held === component.plain.weak())
        #expect(component.plain.scoped() !== component.plain.scoped())
        #expect(component.plain.keyed(1) === component.plain.keyed(1))
    }

    @Test("single and weak may provide values and existentials, not only classes")
    func valuesAndExistentials() {
        let component = PlainComponent()
        #expect(component.plain.number() == 42)
        #expect(component.plain.greeter().greet() == "hello")
        #expect(component.plain.greeter() as AnyObject === component.plain.greeter() as AnyObject)
        let weak = component.plain.weakGreeter()
        #expect(weak === component.plain.weakGreeter())
    }
}

// MARK: Fixtures

final class ScopedComponent: Component, @unchecked Sendable {
    var scopes: ScopeModule { module() }
}

final class Context: Sendable {}

struct Nested {
    let context: Context
}

struct Pair {
    let left: Context
    let right: Context
    let nested: Nested
}

class ScopeModule: Module<ScopedComponent> {
    func context() -> Context { scoped { Context() } }
    func nested() -> Nested { transient { c in Nested(context: c.scopes.context()) } }
    /// Within one resolution, resolves a scoped provider of two short-lived components in turn.
    func temporaries() -> (first: Context, second: Context) {
        transient {
            var first: Context?
            do {
                let temporary = ScopedComponent()
                first = temporary.scopes.context()
            }
            let other = ScopedComponent()
            return (first!, other.scopes.context())
        }
    }

    /// Within one resolution, resolves the scoped provider of modules made directly for the
    /// component, each released before the next is made.
    func contextsOfReleasedModules() -> [Context] {
        transient { c in (0..<8).map { _ in ScopeModule(c).context() } }
    }

    func pair() -> Pair {
        transient { c in
            Pair(left: c.scopes.context(), right: c.scopes.context(), nested: c.scopes.nested())
        }
    }

    let attempts = Counter()

    /// Fails on its first build only.
    func failingOnce() throws(Flaky) -> Context {
        try scoped { () throws(Flaky) -> Context in
            attempts.increment()
            if attempts.count == 1 { throw Flaky() }
            return Context()
        }
    }

    /// Within one resolution: whether the first call threw, then two more calls.
    func retriedAfterFailure() -> (failed: Bool, retried: Context, again: Context) {
        transient { c in
            var failed = false
            do { _ = try c.scopes.failingOnce() } catch { failed = true }
            return (failed, try! c.scopes.failingOnce(), try! c.scopes.failingOnce())
        }
    }

    let resolvingMade = Counter()
    /// For each deinitializer of a `ResolvingContext` that resolved: whether it got an instance
    /// other than the one being released.
    let seenFromDeinitializer = LockedBox<[Bool]>([])

    /// A context whose deinitializer, the first time, resolves `resolving()` again.
    func resolving() -> ResolvingContext {
        scoped { c in
            c.scopes.resolvingMade.increment()
            return ResolvingContext(number: c.scopes.resolvingMade.count) { dying in
                guard dying == 1 else { return }
                let again = c.scopes.resolving()
                c.scopes.seenFromDeinitializer.withLock { $0.append(again.number != dying) }
            }
        }
    }

    func resolvingPair() -> (left: ResolvingContext, right: ResolvingContext) {
        transient { c in (c.scopes.resolving(), c.scopes.resolving()) }
    }

    let earlierMade = Counter()
    /// For the deinitializer of `later()`'s instance: whether `earlier()` gave it an instance
    /// other than the one its resolution had yet to release.
    let seenByLater = LockedBox<[Bool]>([])
    /// What the deinitializer of `later()`'s instance got, kept weakly, and how many it got.
    let fromLater = LockedBox(WeaklyKept())

    func earlier() -> ResolvingContext {
        scoped { c in
            c.scopes.earlierMade.increment()
            return ResolvingContext(number: c.scopes.earlierMade.count) { _ in }
        }
    }

    /// A context whose deinitializer, the first time, asks for `earlier()`, and records whether
    /// it got a new instance.
    func later() -> ResolvingContext {
        scoped { c in
            let pending = c.scopes.earlier().number
            return ResolvingContext(number: -1) { _ in
                guard c.scopes.seenByLater.withLock({ $0.isEmpty }) else { return }
                let again = c.scopes.earlier()
                c.scopes.seenByLater.withLock { $0.append(again.number != pending) }
                c.scopes.fromLater.withLock {
                    $0.instance = again
                    $0.made += 1
                }
            }
        }
    }

    /// The numbers of the instances of `numbered(_:)`, in the order they were released.
    let releases = LockedBox<[Int]>([])

    /// A scoped instance that records its number when it is released; one provider per number, so
    /// that one resolution holds several.
    func numbered(_ number: Int) -> ResolvingContext {
        switch number {
        case 1:
            scoped { c in ResolvingContext(number: 1) { n in c.scopes.releases.withLock { $0.append(n) } } }
        case 2:
            scoped { c in ResolvingContext(number: 2) { n in c.scopes.releases.withLock { $0.append(n) } } }
        default:
            scoped { c in ResolvingContext(number: 3) { n in c.scopes.releases.withLock { $0.append(n) } } }
        }
    }

    /// Asks for three scoped instances in one resolution, which alone holds them.
    func releasedInOrder() {
        transient { c in
            for number in 1...3 { _ = c.scopes.numbered(number) }
        }
    }

    /// `earlier()`'s instance, after `later()` was asked for in the same resolution.
    func earlierAndLater() -> ResolvingContext {
        transient { c in
            let first = c.scopes.earlier()
            _ = c.scopes.later()
            return first
        }
    }
}

/// An instance kept weakly, and a count.
struct WeaklyKept {
    weak var instance: ResolvingContext?
    var made = 0
}

final class ResolvingContext: Sendable {
    let number: Int
    let onDeinit: @Sendable (Int) -> Void

    init(number: Int, onDeinit: @escaping @Sendable (Int) -> Void) {
        (self.number, self.onDeinit) = (number, onDeinit)
    }

    deinit { onDeinit(number) }
}

struct Flaky: Error {}

final class FlakyComponent: Component, @unchecked Sendable {
    let attempts = Counter()
    let failures = Failures()
    var flaky: FlakyModule { module() }
}

/// How many of the next builds fail.
final class Failures: @unchecked Sendable {
    private let remaining = Counter()
    private let budget = Counter()

    func store(_ count: Int) { for _ in 0..<count { budget.increment() } }

    func take() -> Bool {
        guard remaining.count < budget.count else { return false }
        remaining.increment()
        return true
    }
}

class FlakyModule: Module<FlakyComponent> {
    private func make(_ c: FlakyComponent) throws -> Thing {
        c.attempts.increment()
        if c.failures.take() { throw Flaky() }
        return Thing(Counter())
    }

    func single() throws -> Thing { try single { c in try make(c) } }
    func transient() throws -> Thing { try transient { c in try make(c) } }
    func weak() throws -> Thing { try weak { c in try make(c) } }
    func scoped() throws -> Thing { try scoped { c in try make(c) } }
    func keyed() throws -> Thing { try single(key: 1) { c in try make(c) } }

    func thing(_ strategy: Strategy) throws -> Thing {
        switch strategy {
        case .single: try single()
        case .transient: try transient()
        case .weak: try weak()
        case .scoped: try scoped()
        case .keyed: try keyed()
        }
    }
}

protocol Greeter: AnyObject, Sendable {
    func greet() -> String
}

final class EnglishGreeter: Greeter, Sendable {
    func greet() -> String { "hello" }
}

final class PlainComponent: Component, @unchecked Sendable {
    var plain: PlainModule { module() }
}

class PlainModule: Module<PlainComponent> {
    func single() -> Thing { single { Thing() } }
    func transient() -> Thing { transient { Thing() } }
    func weak() -> Thing { weak { Thing() } }
    func scoped() -> Thing { scoped { Thing() } }
    func keyed(_ key: Int) -> Thing { single(key: key) { Thing() } }
    func number() -> Int { single { 42 } }
    func greeter() -> any Greeter { single { EnglishGreeter() } }
    func weakGreeter() -> any Greeter { weak { EnglishGreeter() } }
}

final class FlakyScopeComponent: Component, @unchecked Sendable {
    var flaky: FlakyScopeModule { module() }
}

final class FlakyScopeModule: Module<FlakyScopeComponent> {
    let failsOnce = LockedBox(true)

    func context() throws -> Thing {
        try scoped { c in
            if c.flaky.failsOnce.withLock({ failing in
                defer { failing = false }
                return failing
            }) {
                throw Flaky()
            }
            return Thing()
        }
    }

    /// Calls `context()` three times in one resolution.
    func threeCalls() -> (Thing?, Thing?, Thing?) {
        transient { c in (try? c.flaky.context(), try? c.flaky.context(), try? c.flaky.context()) }
    }
}
