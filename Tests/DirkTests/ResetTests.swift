import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("reset()")
struct ResetTests {
    @Test(
        "reset() drops what the component cached, so the next call builds anew, even while the old one is held",
        arguments: [Strategy.single, .keyed, .weak])
    func resetRebuilds(strategy: Strategy) {
        let component = TestComponent()
        let before = strategy.resolve(component)
        component.reset()
        let after = strategy.resolve(component)
        #expect(before !== after)
        #expect(after === strategy.resolve(component))
        #expect(component.counter.count == 2)
    }

    @Test("reset() releases the cached instances at once")
    func resetReleases() {
        let component = TestComponent()
        weak var single: Thing?
        weak var keyed: Thing?
        do {
            single = component.things.single()
            keyed = component.things.keyed("a")
        }
        #expect(single != nil)
        component.reset()
        #expect(single == nil)
        #expect(keyed == nil)
    }

    /// How the component lets go of a `single` that was read many times.
    enum Release: CaseIterable, Sendable {
        case reset
        case componentReleased
        case componentReleasedWhileModuleHeld
    }

    @Test(
        "a single read a thousand times is released at once, by reset() or with its component, even while its module is held",
        arguments: Release.allCases)
    func manyReadsThenRelease(release: Release) {
        // A cached read hands out references its cell made in bulk; these must all go back.
        var component: TestComponent? = TestComponent()
        var module: ThingModule? = component!.things
        weak var single: Thing?
        do {
            let first = module!.single()
            single = first
            let same = (0..<1_000).filter { _ in module!.single() === first }.count
            #expect(same == 1_000)
        }
        #expect(single != nil)
        switch release {
        case .reset: component!.reset()
        case .componentReleased: (module, component) = (nil, nil)
        case .componentReleasedWhileModuleHeld: component = nil
        }
        #expect(single == nil)
        withExtendedLifetime(module) {}
    }

    @Test("reset() leaves the parents' caches untouched")
    func resetKeepsParents() {
        let app = RootComponent()
        let feature = LeafComponent().parent(app)
        let store = feature.leaf.viewModel().store
        feature.reset()
        #expect(feature.leaf.viewModel().store === store)
        app.reset()
        #expect(feature.leaf.viewModel().store !== store)
    }

    @Test(
        "an instance being built while reset() runs is cached when it is finished", arguments: [false, true])
    func buildSurvivesReset(keyed: Bool) throws {
        let component = GateComponent()
        let resolve: @Sendable () -> Thing = {
            keyed ? component.gates.blockedKeyed(1) : component.gates.blocked()
        }
        let built = LockedBox<Thing?>(nil)
        let resolvedAfter = LockedBox<Thing?>(nil)
        withWatchdog {
            let gate = Gate()
            component.gates.gate = gate
            let finished = DispatchSemaphore(value: 0)
            // A thread of its own: Dispatch's pool grows slowly while its threads block.
            Thread {
                let thing = resolve()
                built.withLock { $0 = thing }
                finished.signal()
            }.start()
            gate.entered.wait()
            component.reset()
            component.gates.gate = nil
            gate.open()
            finished.wait()
            let thing = resolve()
            resolvedAfter.withLock { $0 = thing }
        }
        // Checked here, on the test's own thread, which the test's issues are recorded for.
        let after = try #require(resolvedAfter.withLock { $0 }, "the watchdog ended the work")
        #expect(after === built.withLock { $0 })
        #expect(component.blockedBuilds.count == 1)
    }

    @Test("reset() running while other threads read cached singles hands out only live instances")
    func resetDuringConcurrentReads() {
        let component = TestComponent()
        _ = component.things.single()
        // Each reader starts once resets are under way, and reads until it got another instance
        // than its previous read, which proves a reset ran between two of its reads, or until a
        // bound. On threads of their own: Dispatch would start the resets after the reads.
        let changes = Counter()
        let neverBuilt = Counter()
        withWatchdog {
            let resets = Counter()
            let readersDone = Counter()
            onThreads(3) { index in
                if index == 2 {
                    repeat {
                        resets.increment()
                        component.reset()
                    } while readersDone.count < 2
                    return
                }
                while resets.count == 0 { sched_yield() }
                var previous: ObjectIdentifier?
                var reads = 0
                while reads < 20_000 || (changes.count == 0 && reads < 2_000_000) {
                    reads += 1
                    let thing = component.things.single()
                    if thing.number <= 0 { neverBuilt.increment() }
                    if let previous, previous != ObjectIdentifier(thing) { changes.increment() }
                    previous = ObjectIdentifier(thing)
                }
                readersDone.increment()
            }
        }
        #expect(changes.count > 0, "no reader saw a reset between two of its reads")
        #expect(neverBuilt.count == 0, "a read returned an instance that was never built")
        // The last reset came after the priming call, so this builds a second instance at least.
        let after = component.things.single()
        #expect(after.number == component.counter.count)
        #expect(component.counter.count > 1)
        #expect(after === component.things.single())
    }

    @Test("reset() and the component's release reach modules created without registering them")
    func unregisteredModules() {
        let component = TestComponent()
        let module = ThingModule(component)
        let first = module.single()
        #expect(module.single() === first)
        component.reset()
        #expect(module.single() !== first)
        #expect(module !== component.things)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a module created without registering it traps after its component was released")
    func unregisteredModuleAfterRelease() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var component: TestComponent? = TestComponent()
            let module = ThingModule(component!)
            _ = module.single()
            component = nil
            _ = module.single()
        }
        #expect(
            standardError(of: result).contains(
                "`ThingModule.single()` was called after its component `TestComponent` was released"))
    }
    #endif

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test("reset() inside a provider of the same component traps", arguments: SelfResettingProvider.allCases)
    func reentrantResetTraps(_ provider: SelfResettingProvider) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [provider] in
            armExitTestWatchdog()
            await provider.call(on: ResettingComponent())
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `ResettingComponent.reset()` was called while `ResettingModule.\(provider.rawValue)()` of that component was being resolved"
            ), "\(provider): \(message)")
        #expect(message.contains("Call `reset()` outside providers"))
    }
    #endif

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("reset() of a component whose instance this resolution holds until it ends traps")
    func resetOfAHeldInstanceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Inside a `configure:` closure, the other component's single is handed out at once
            // but published when the resolution ends: a reset would leave it, and a later call on
            // this thread would return it again, and then cache it.
            let other = TestComponent()
            let component = ResettingComponent()
            component.resetting.other = other
            _ = component.resetting.configuresThenResetsOther()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `TestComponent.reset()` was called while `ThingModule.single()` of that component was being resolved"
            ), "\(message)")
    }
    #endif

    @Test(
        "reset() of a component whose handle this resolution holds is allowed: no reset drops a handle's value"
    )
    func resetAfterReadingItsHandle() {
        let other = TestComponent()
        let first = other.things.single()
        let component = ResettingComponent()
        component.resetting.other = other
        _ = component.resetting.configuresReadsHandleThenResetsOther()
        #expect(other.things.single() !== first)
    }

    @Test("reset() of another component inside a provider is allowed, synchronous or async")
    func resetOfAnotherComponent() async {
        let other = TestComponent()
        let first = other.things.single()
        let component = ResettingComponent()
        component.resetting.other = other
        _ = component.resetting.resetsOther()
        let second = other.things.single()
        #expect(second !== first)
        _ = await component.resetting.asyncResetsOther()
        #expect(other.things.single() !== second)
    }

    @Test("reset() in an unstructured task, outside providers, after the provider that started it returned")
    func resetInTaskAfterItsProviderReturned() async {
        let component = ResettingComponent()
        let first = await component.resetting.asyncShared()
        let latch = Latch()
        component.resetting.latch = latch
        let task = await component.resetting.startsTaskThatResets()
        latch.open()
        await task.value
        #expect(await component.resetting.asyncShared() !== first)
    }

    @Test("reset() in a task after its async resolution has ended is allowed")
    func resetAfterAsyncResolution() async {
        let component = ResettingComponent()
        let first = await component.resetting.asyncShared()
        component.reset()
        #expect(await component.resetting.asyncShared() !== first)
    }
}

@Suite("reset() and single(key:) calls under way")
struct KeyedResetTests {
    @Test("a single(key:) call that found its key's cell before reset() gets the instance cached after it")
    func keyedCallSpanningReset() {
        let component = TestComponent()
        let first = component.things.gatedKeyed(GatedKey(1))
        #expect(component.counter.count == 1)
        let gate = Gate()
        let spanning = LockedBox<Thing?>(nil)
        let rebuilt = LockedBox<Thing?>(nil)
        withWatchdog {
            let done = DispatchSemaphore(value: 0)
            Thread {
                // Finds the key's cell, then holds in the key's `==` until the gate opens.
                let thing = component.things.gatedKeyed(GatedKey(1, gate: gate))
                spanning.withLock { $0 = thing }
                done.signal()
            }.start()
            gate.entered.wait()
            component.reset()
            let thing = component.things.gatedKeyed(GatedKey(1))
            rebuilt.withLock { $0 = thing }
            gate.open()
            done.wait()
        }
        let cached = component.things.gatedKeyed(GatedKey(1))
        #expect(cached !== first)
        #expect(rebuilt.withLock { $0 } === cached)
        #expect(spanning.withLock { $0 } === cached, "the call under way built an instance nobody finds")
        #expect(component.counter.count == 2)
    }
}

/// A key whose `==` waits at its gate, once, holding the caller between finding the key's cell
/// and using it.
struct GatedKey: Hashable, @unchecked Sendable {
    let id: Int
    let gate: Gate?
    private let armed: LockedBox<Bool>

    init(_ id: Int, gate: Gate? = nil) {
        self.id = id
        self.gate = gate
        armed = LockedBox(gate != nil)
    }

    static func == (lhs: GatedKey, rhs: GatedKey) -> Bool {
        lhs.passGateOnce()
        rhs.passGateOnce()
        return lhs.id == rhs.id
    }

    /// Waits at the gate, the first time only.
    private func passGateOnce() {
        let isFirst = armed.withLock { armed in
            defer { armed = false }
            return armed
        }
        if isFirst { gate?.pass() }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

extension ThingModule {
    func gatedKeyed(_ key: GatedKey) -> Thing { single(key: key) { c in Thing(c.counter) } }
}

/// The providers that reset their own component, each made to run.
enum SelfResettingProvider: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case resetsItself, asyncResetsItself, asyncSingleResetsItself, resetsInTask, resetsInChildTask,
        resetsInTaskGroup, resetsInTaskWhileItRuns

    var testDescription: String { rawValue }

    /// Calls the provider, which never returns.
    func call(on component: ResettingComponent) async {
        switch self {
        case .resetsItself: _ = component.resetting.resetsItself()
        case .asyncResetsItself: _ = await component.resetting.asyncResetsItself()
        case .asyncSingleResetsItself: _ = await component.resetting.asyncSingleResetsItself()
        case .resetsInTask:
            // The task that calls `resetsInTask()` outlives the resolution that started it, which
            // ends before the task's provider resets.
            let latch = Latch()
            component.resetting.latch = latch
            component.resetting.entered = Latch()
            _ = await component.resetting.startsResettingTask()
            latch.open()
            try? await Task.sleep(for: .seconds(defaultWatchdogSeconds))
        case .resetsInChildTask: _ = await component.resetting.resetsInChildTask()
        case .resetsInTaskGroup: _ = await component.resetting.resetsInTaskGroup()
        case .resetsInTaskWhileItRuns: _ = await component.resetting.resetsInTaskWhileItRuns()
        }
        withExtendedLifetime(component) {}
    }
}

// MARK: Fixtures

final class ResettingComponent: Component, @unchecked Sendable {
    var resetting: ResettingModule { module() }
}

class ResettingModule: Module<ResettingComponent> {
    nonisolated(unsafe) var other: TestComponent?
    nonisolated(unsafe) var latch: Latch?
    nonisolated(unsafe) var entered: Latch?

    func resetsItself() -> Thing {
        transient { c in
            c.reset()
            return Thing()
        }
    }

    /// Inside its `configure:` closure, gets `other`'s single, which the resolution holds until it
    /// ends, then resets `other`.
    func configuresThenResetsOther() -> Thing {
        single {
            Thing()
        } configure: { _, _ in
            _ = self.other?.things.single()
            self.other?.reset()
        }
    }

    /// Inside its `configure:` closure, reads a handle of `other`, which the resolution holds until
    /// it ends, then resets `other`.
    func configuresReadsHandleThenResetsOther() -> Thing {
        single {
            Thing()
        } configure: { _, _ in
            guard let other = self.other else { return }
            _ = other.lazy { $0.things.single() }.value
            other.reset()
        }
    }

    func resetsOther() -> Thing {
        transient {
            self.other?.reset()
            return Thing()
        }
    }

    /// Resets after a suspension, as a factory that awaits its work first does.
    func asyncResetsItself() async -> Thing {
        await transient { c in
            await Task.yield()
            c.reset()
            return Thing()
        }
    }

    func asyncSingleResetsItself() async -> Thing {
        await single { c in
            c.reset()
            await Task.yield()
            return Thing()
        }
    }

    func asyncResetsOther() async -> Thing {
        await transient { _ in
            await Task.yield()
            self.other?.reset()
            return Thing()
        }
    }

    func asyncShared() async -> Thing { await single { _ async in Thing() } }

    /// Starts, in an unstructured task, a provider that resets once `latch` opens; returns once
    /// that provider runs, as part of this resolution until it ends.
    func startsResettingTask() async -> Thing {
        await transient { c async in
            Task { _ = await c.resetting.resetsInTask() }
            await self.entered!.wait()
            return Thing()
        }
    }

    /// Resets from a child task of its factory, which belongs to its resolution.
    func resetsInChildTask() async -> Thing {
        await transient { c in
            async let reset: Void = c.reset()
            await reset
            return Thing()
        }
    }

    /// Resets from a task of a group its factory runs.
    func resetsInTaskGroup() async -> Thing {
        await transient { c in
            await withTaskGroup(of: Void.self) { group in group.addTask { c.reset() } }
            return Thing()
        }
    }

    /// Resets, outside any provider, from an unstructured task whose end its factory awaits.
    func resetsInTaskWhileItRuns() async -> Thing {
        await transient { c in
            await Task { c.reset() }.value
            return Thing()
        }
    }

    /// Starts an unstructured task that resets, outside any provider, once `latch` opens, and
    /// returns it without waiting for it.
    func startsTaskThatResets() async -> Task<Void, Never> {
        await transient { c async in
            let latch = self.latch!
            return Task {
                await latch.wait()
                c.reset()
            }
        }
    }

    func resetsInTask() async -> Thing {
        await transient { c in
            self.entered!.open()
            await self.latch!.wait()
            c.reset()
            return Thing()
        }
    }
}

@Suite("reset() releases everything")
struct ResetReleaseTests {
    @Test("reset() releases the keys of single(key:), class keys included, with their instances")
    func resetReleasesKeys() {
        let component = ClassKeyComponent()
        weak var key: ClassKey?
        weak var instance: Thing?
        do {
            let strong = ClassKey()
            key = strong
            instance = component.keyed.thing(for: strong)
        }
        #expect(key != nil, "a cached key stays until reset()")
        component.reset()
        #expect(key == nil)
        #expect(instance == nil)
    }

    @Test("a module registration that a later one replaced is released")
    func replacedRegistrationIsReleased() {
        weak var replaced: NetworkTestModule?
        let component = AppTestComponent()
        do {
            let first = NetworkTestModule(component)
            replaced = first
            component.module(NetworkTestModule.self) { _ in first }
        }
        component.module(NetworkTestModule.self) { StubNetworkTestModule($0) }
        #expect(replaced == nil)
        #expect(component.network.api() == "stub")
    }

    @Test("a module created by hand and dropped leaves nothing behind in its component")
    func droppedModuleIsReleased() {
        let component = TestComponent()
        weak var module: ThingModule?
        weak var instance: Thing?
        do {
            let strong = ThingModule(component)
            module = strong
            instance = strong.single()
        }
        #expect(module == nil)
        #expect(instance == nil)
    }
}

final class ClassKey: Hashable, @unchecked Sendable {
    static func == (lhs: ClassKey, rhs: ClassKey) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

final class ClassKeyComponent: Component, @unchecked Sendable {
    var keyed: ClassKeyModule { module() }
}

final class ClassKeyModule: Module<ClassKeyComponent> {
    func thing(for key: ClassKey) -> Thing { single(key: key) { Thing() } }
}
