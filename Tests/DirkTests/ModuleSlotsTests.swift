import Dirk
import DirkTestSupport
import Foundation
import Testing

/// A module keeps nothing of its own: its providers' cells live in its component's table, made on
/// each provider's first call that keeps something. These tests check that nothing is lost for a
/// module whose providers have kept nothing yet (observers, overrides, caches, the graph's list of
/// modules), and that modules made or used at once share one table.
@Suite("A module's providers in its component's table")
struct ModuleSlotsTests {
    @Test("a module of transients keeps nothing; its first provider that keeps something caches")
    func slotsOnFirstNeed() {
        let component = SlotsComponent()
        _ = component.makers.transient()
        let first = component.makers.single()
        #expect(component.makers.single() === first)
    }

    @Test("a trace and a recording started after a module was made see its transients")
    func observedAfterTheModuleWasMade() {
        let component = SlotsComponent()
        _ = component.makers.transient()
        let (_, trace) = component.trace { component.makers.transient() }
        #expect(trace == "SlotsModule.transient() [transient] new\n")
        let (_, untraced) = component.trace { 0 }
        #expect(untraced.isEmpty)
        component.startRecordingDependencies()
        _ = component.makers.pair()
        #expect(
            component.dependencyGraph().dependencies
                == [.init(from: "SlotsModule.pair()", to: "SlotsModule.transient()")])
    }

    @Test("a transient of a module without slots may be overridden; later calls use the override")
    func overriddenWithoutSlots() {
        let component = SlotsComponent()
        #expect(component.makers.transient().number != 99)
        component.overriding {
            $0.makers.transient()
        } with: {
            Thing(number: 99)
        }
        #expect(component.makers.transient().number == 99)
        #expect(component.makers.pair().0.number == 99, "through another provider too")
    }

    @Test("the graph lists a module in use whose providers kept nothing, and a registered one not used yet")
    func graphListsModulesWithoutSlots() {
        let component = SlotsComponent().module { OtherSlotsModule($0) }
        _ = component.makers.transient()
        #expect(component.dependencyGraph().modules == ["OtherSlotsModule", "SlotsModule"])
    }

    @Test("a module made directly for a component releases its cells and their instances with it")
    func directModuleReleasesItsSlots() {
        weak var instance: Thing?
        weak var releasedModule: SlotsModule?
        do {
            let component = SlotsComponent()
            let module = SlotsModule(component)
            instance = module.single()
            releasedModule = module
            #expect(component.dependencyGraph().modules.contains("SlotsModule"))
        }
        #expect(releasedModule == nil)
        #expect(instance == nil, "the cells went, and the instance they cached")
    }

    @Test("a module's `scoped` provider is in the graph from its first call, once")
    func scopedListedOnce() {
        let component = SlotsComponent()
        let first = component.makers.scoped()
        let graph = component.dependencyGraph()
        #expect(graph.nodes.map(\.name) == ["SlotsModule.scoped()"])
        #expect(graph.nodes.map(\.strategy) == [.scoped])
        #expect(graph.modules == ["SlotsModule"])
        let second = component.makers.scoped()
        #expect(second !== first, "another resolution, another instance")
        let after = component.dependencyGraph()
        #expect(after.nodes.map(\.name) == ["SlotsModule.scoped()"], "listed once")
        #expect(after.nodes.map(\.strategy) == [.scoped])
    }

    @Test(
        "a resolution keeps one `scoped` instance when another provider makes the module's slots between two calls"
    )
    func scopedAcrossTheSlotsBeingMade() {
        let component = SlotsComponent()
        let (first, single, second) = component.makers.scopedAroundSingle()
        #expect(first === second)
        #expect(single === component.makers.single())
        #expect(component.makers.scopedAroundSingle().0 !== first, "another resolution, another instance")
    }

    @Test("the `scoped` providers of two modules are both in the graph")
    func scopedProvidersOfTwoModules() {
        let component = SlotsComponent()
        _ = component.makers.scoped()
        _ = component.scopes.scoped()
        #expect(
            component.dependencyGraph().nodes.map(\.name) == [
                "ScopedSlotsModule.scoped()", "SlotsModule.scoped()",
            ])
    }

    @Test(
        "a module made directly that goes before its component takes its `scoped` provider out of the graph")
    func scopedProviderGoesWithItsModule() {
        let component = SlotsComponent()
        weak var released: SlotsModule?
        do {
            let module = SlotsModule(component)
            released = module
            _ = module.scoped()
            #expect(component.dependencyGraph().nodes.map(\.name) == ["SlotsModule.scoped()"])
        }
        #expect(released == nil)
        #expect(component.dependencyGraph().nodes.isEmpty)
    }

    @Test(
        "modules made directly that call a `scoped` provider on one thread and go on another leave nothing in the graph"
    )
    func scopedProvidersOfModulesGoingOnOtherThreads() {
        let component = SlotsComponent()
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<stressRounds(300) {
                let handOver = LockedBox<SlotsModule?>(nil)
                let made = DispatchSemaphore(value: 0)
                onThreads(2) { index in
                    if index == 0 {
                        let module = SlotsModule(component)
                        _ = module.scoped()
                        handOver.withLock { $0 = module }
                        made.signal()
                    } else {
                        made.wait()
                        // The last reference goes here: the module's `deinit` runs on this thread.
                        handOver.withLock { $0 = nil }
                    }
                }
                checks.check(
                    component.dependencyGraph().nodes.isEmpty, "a module that went left its provider")
            }
        }
        checks.expectNone()
    }

    @Test("a `scoped` call on a watched component is traced")
    func scopedWatched() {
        let component = SlotsComponent()
        let (_, trace) = component.trace { component.makers.scoped() }
        #expect(trace == "SlotsModule.scoped() [scoped] new\n")
    }

    @Test(
        "threads that call a new module's `scoped` and `single` providers at once keep one instance per resolution"
    )
    func scopedUnderRace() {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<stressRounds(200) {
                let component = SlotsComponent()
                let arrived = Counter()
                let singles = LockedBox<[Thing]>([])
                onThreads(4) { index in
                    let module = component.makers
                    _ = arrived.increment()
                    while arrived.count < 4 { sched_yield() }
                    if index % 2 == 0 {
                        let (first, single, second) = module.scopedAroundSingle()
                        checks.check(first === second, "two scoped instances in one resolution")
                        singles.withLock { $0.append(single) }
                    } else {
                        _ = module.scoped()
                        singles.withLock { $0.append(module.single()) }
                    }
                }
                checks.check(
                    singles.withLock { $0.allSatisfy { $0 === component.makers.single() } }, "another single")
                checks.check(
                    component.dependencyGraph().nodes.map(\.name) == [
                        "SlotsModule.scoped()", "SlotsModule.single()",
                    ],
                    "the graph lost or doubled a provider")
            }
        }
        checks.expectNone()
    }

    @Test("threads that first call different providers of a new module at once share one table")
    func slotsSharedUnderStress() {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<stressRounds(200) {
                let component = SlotsComponent()
                let firsts = LockedBox<[Int: [Thing]]>([:])
                let arrived = Counter()
                onThreads(4) { index in
                    let module = component.makers
                    _ = arrived.increment()
                    while arrived.count < 4 { sched_yield() }
                    let things =
                        index % 2 == 0
                        ? [module.single(), module.other()] : [module.other(), module.single()]
                    firsts.withLock { $0[index] = index % 2 == 0 ? things : things.reversed() }
                }
                let all = firsts.withLock { $0 }
                checks.check(all.count == 4, "a thread made no first calls")
                for things in all.values {
                    checks.check(things[0] === component.makers.single(), "another single")
                    checks.check(things[1] === component.makers.other(), "another other")
                }
            }
        }
        checks.expectNone()
    }
}

final class SlotsComponent: Component, @unchecked Sendable {
    var makers: SlotsModule { module() }
    var scopes: ScopedSlotsModule { module() }
}

final class SlotsModule: Module<SlotsComponent> {
    func transient() -> Thing { transient { Thing(number: 1) } }
    func pair() -> (Thing, Thing) { transient { c in (c.makers.transient(), Thing(number: 2)) } }
    func single() -> Thing { single { Thing(number: 3) } }
    func other() -> Thing { single { Thing(number: 4) } }
    func scoped() -> Thing { scoped { Thing(number: 5) } }
    /// The `scoped` instance, then the `single`, whose first call makes the slots, then the
    /// `scoped` instance again, in one resolution.
    func scopedAroundSingle() -> (Thing, Thing, Thing) {
        transient { c in (c.makers.scoped(), c.makers.single(), c.makers.scoped()) }
    }
}

final class ScopedSlotsModule: Module<SlotsComponent> {
    func scoped() -> Thing { scoped { Thing(number: 6) } }
}

final class OtherSlotsModule: Module<SlotsComponent> {}
