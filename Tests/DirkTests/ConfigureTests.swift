import Dirk
import DirkTestSupport
import Testing

@Suite("Setter injection through configure")
struct ConfigureTests {
    @Test("two singles refer to each other through configure")
    func singlesReferToEachOther() {
        let component = CoupleComponent()
        let husband = component.couple.husband()
        let wife = component.couple.wife()
        #expect(husband.partner === wife)
        #expect(wife.partner === husband)
        #expect(component.configured.count == 2)
    }

    @Test("configure runs once per new instance, after it is cached")
    func configureRunsOncePerInstance() {
        let component = CoupleComponent()
        _ = component.couple.husband()
        _ = component.couple.husband()
        #expect(component.configured.count == 2)
        #expect(component.couple.seenSelfWhileConfiguring)
    }

    @Test("scoped instances refer to each other within one resolution")
    func scopedPairWithinOneResolution() {
        let component = CoupleComponent()
        let pair = component.couple.scopedPair()
        #expect(pair.0.partner === pair.1)
        #expect(pair.1.partner === pair.0)
        let next = component.couple.scopedPair()
        #expect(next.0 !== pair.0)
    }

    @Test("weak instances refer to each other through configure")
    func weakPair() {
        let component = CoupleComponent()
        let left = component.couple.weakLeft()
        #expect(left.link === component.couple.weakRight())
        #expect(left.link?.partner === left)
    }

    @Test("an instance abandoned by a throwing configure is released outside Dirk's locks")
    func abandonedInstanceDeinitCanResolve() {
        let component = CoupleComponent()
        let checks = OffThreadChecks()
        withWatchdog {
            do {
                _ = try component.couple.abandoned()
                checks.check(false, "abandoned() returned instead of throwing")
            } catch {
                checks.check(error is Flaky, "abandoned() threw \(error)")
            }
        }
        checks.expectNone()
        // Its own configure, then the pair its deinitializer resolved.
        #expect(component.configured.count == 3)
    }

    @Test("a throwing configure caches nothing and the error reaches the caller")
    func throwingConfigure() throws {
        let component = CoupleComponent()
        #expect(throws: Flaky.self) { try component.couple.failingOnce() }
        let thing = try component.couple.failingOnce()
        let again = try component.couple.failingOnce()
        #expect(thing === again)
        #expect(component.configured.count == 2)
    }

    @Test("a configure that throws takes with it what was built meanwhile and refers to its instance")
    func throwingConfigureTakesItsDependentsWithIt() throws {
        // `half()`'s configure asks for `dependent()`, whose factory gets the half-configured
        // instance, and then fails. Kept, `dependent()` would refer to an instance never
        // configured, which the next `half()` replaces.
        let component = HalfComponent()
        #expect(throws: Flaky.self) { try component.halves.half() }
        let half = try component.halves.half()
        let dependent = try component.halves.dependent()
        #expect(half.isConfigured)
        #expect(dependent.half === half, "the dependent kept refers to the instance whose configure threw")
        #expect(half.dependent === dependent)
        #expect(component.halves.builtDependents.count == 2)
    }
}

// MARK: Fixtures

/// Written only in its provider's `configure:`, before Dirk hands it to anyone.
final class Half: @unchecked Sendable {
    weak var dependent: Dependent?
    var isConfigured = false
}

final class Dependent: Sendable {
    let half: Half

    init(half: Half) {
        self.half = half
    }
}

final class HalfComponent: Component, @unchecked Sendable {
    var halves: HalfModule { module() }
}

final class HalfModule: Module<HalfComponent> {
    let builtDependents = Counter()
    let failsOnce = LockedBox(true)

    /// Its configure gets `dependent()`, then fails the first time.
    func half() throws -> Half {
        try single {
            Half()
        } configure: { half, c in
            half.dependent = try c.halves.dependent()
            if c.halves.failsOnce.withLock({ failing in
                defer { failing = false }
                return failing
            }) {
                throw Flaky()
            }
            half.isConfigured = true
        }
    }

    func dependent() throws -> Dependent {
        try single { c in
            c.halves.builtDependents.increment()
            return Dependent(half: try c.halves.half())
        }
    }
}

final class CoupleComponent: Component, @unchecked Sendable {
    let configured = Counter()
    var couple: CoupleModule { module() }
}

class CoupleModule: Module<CoupleComponent> {
    nonisolated(unsafe) var seenSelfWhileConfiguring = false

    func husband() -> Thing {
        single(
            { Thing() },
            configure: { husband, c in
                c.configured.increment()
                self.seenSelfWhileConfiguring = c.couple.husband() === husband
                husband.partner = c.couple.wife()
            })
    }

    func wife() -> Thing {
        single(
            { Thing() },
            configure: { wife, c in
                c.configured.increment()
                wife.partner = c.couple.husband()
            })
    }

    func scopedLeft() -> Thing {
        scoped({ Thing() }, configure: { left, c in left.partner = c.couple.scopedRight() })
    }
    func scopedRight() -> Thing {
        scoped({ Thing() }, configure: { right, c in right.partner = c.couple.scopedLeft() })
    }
    func scopedPair() -> (Thing, Thing) { transient { c in (c.couple.scopedLeft(), c.couple.scopedRight()) } }

    func weakLeft() -> Thing { weak({ Thing() }, configure: { left, c in left.link = c.couple.weakRight() }) }
    func weakRight() -> Thing {
        weak({ Thing() }, configure: { right, c in right.partner = c.couple.weakLeft() })
    }

    /// Its instance resolves a provider of the same component when it is released.
    func abandoned() throws -> Resolving {
        try single(
            { c in Resolving { _ = c.couple.husband() } },
            configure: { _, c in
                c.configured.increment()
                throw Flaky()
            })
    }

    func owner() -> Thing { single({ Thing() }, configure: { owner, c in owner.link = c.couple.owned() }) }
    func owned() -> Thing { single({ Thing() }, configure: { owned, c in owned.back = c.couple.owner() }) }

    func failingOnce() throws -> Thing {
        try single(
            { Thing() },
            configure: { _, c in
                if c.configured.increment() == 1 { throw Flaky() }
            })
    }
}

/// Runs `onDeinit` when released.
final class Resolving: Sendable {
    let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit { onDeinit() }
}
