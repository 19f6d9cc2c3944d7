import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Modules: default creation, registration and substitution")
struct ModuleRegistrationTests {
    @Test("module() creates the module once, on first use, with init(_:)")
    func defaultModuleIsCreatedOnce() {
        let component = AppTestComponent()
        #expect(component.created.count == 0)
        let first = component.data
        #expect(first === component.data)
        #expect(component.created.count == 1)
    }

    @Test("a module whose initializer creates another module first is reset and released with both")
    func nestedModuleCreation() {
        weak var outer: OuterTestModule?
        weak var inner: InnerTestModule?
        do {
            let component = NestingTestComponent()
            let outerModule = component.outer
            outer = outerModule
            inner = component.inner
            let outerThing = outerModule.thing()
            let innerThing = component.inner.thing()
            component.reset()
            #expect(outerModule.thing() !== outerThing)
            #expect(component.inner.thing() !== innerThing)
        }
        #expect(outer == nil)
        #expect(inner == nil)
    }

    @Test(
        "a module registered as a generic base class it inherits from, or as a type held in a variable, serves it"
    )
    func registeringAsABaseClass() {
        let generic = GenericTestComponent().module(GenericTestModule<Int>.self) { SpecialTestModule($0) }
        #expect(generic.numbers is SpecialTestModule)
        #expect(generic.numbers.value() == 2)
        let chosen: NetworkTestModule.Type = StubNetworkTestModule.self
        var registered: StubNetworkTestModule?
        let stubbed = AppTestComponent().module(chosen) { component in
            let module = StubNetworkTestModule(component)
            registered = module
            return module
        }
        #expect(stubbed.stub === registered)
    }

    @Test("builders chain and return the component typed as the subclass")
    func buildersChain() {
        let app: AppTestComponent = AppTestComponent()
            .module { DataTestModule($0) }
            .module(NetworkTestModule.self) { StubNetworkTestModule($0) }
        #expect(app.network is StubNetworkTestModule)
        #expect(app.network.api() == "stub")
        #expect(app.data.session().api == "stub")
    }

    @Test("a registered module is the one module() returns")
    func registeredModuleIsUsed() {
        let component = AppTestComponent()
        let registered = DataTestModule(component)
        component.module { _ in registered }
        #expect(component.data === registered)
    }

    @Test("a module registered with module { } stands in for the module classes it inherits from")
    func subclassStandsInForItsBase() {
        let component = AppTestComponent().module { StubNetworkTestModule($0) }
        #expect(component.network.api() == "stub")
        #expect(component.network === component.module() as StubNetworkTestModule)
    }

    @Test("a later registration before first use replaces an earlier one")
    func registrationReplacesBeforeUse() {
        let component = AppTestComponent()
            .module(NetworkTestModule.self) { NetworkTestModule($0) }
            .module(NetworkTestModule.self) { StubNetworkTestModule($0) }
        #expect(component.network.api() == "stub")
    }

    @Test(
        "threads that create a module at once all get the one published first; the others stay with the component until it goes, and shutdown closes what each built"
    )
    func racingCreatorsShareOneModule() async throws {
        weak var released: RaceTestComponent?
        let counts: (released: Counter, built: Counter)
        do {
            let component = RaceTestComponent()
            // Each initializer goes on once all four threads are creating the module, so that all
            // four create one.
            component.creatorsToAwait = 4
            let modules = LockedBox<[ObjectIdentifier]>([])
            await Self.onNewThread {
                withWatchdog {
                    onThreads(4) { _ in
                        let module = component.racing
                        modules.withLock { $0.append(ObjectIdentifier(module)) }
                    }
                }
            }
            #expect(modules.withLock { $0.count } == 4)
            #expect(Set(modules.withLock { $0 }).count == 1)
            #expect(component.racing === component.racing)
            #expect(component.created.count == 4)
            #expect(component.sawRace.withLock { $0 }, "the threads did not create the module at once")
            #expect(component.released.count == 0, "a module that lost the race went before its component")
            try await component.shutdown()
            #expect(component.built.count >= 1)
            #expect(
                component.closed.names == Array(repeating: "connection", count: component.built.count),
                "each connection built is closed once")
            counts = (component.released, component.built)
            released = component
        }
        #expect(released == nil)
        #expect(counts.released.count == 4, "the modules did not go with their component")
    }

    @Test("tasks that ask for a module while a thread creates it all get one module")
    func concurrentFirstUse() async {
        let component = RaceTestComponent()
        // The initializer waits, within the watchdog's bound, until a task creates the module too,
        // so that the tasks ask while the module is being created, however busy the pool is.
        component.creatorsToAwait = 2
        // The creator runs on a thread of its own: its initializer holds no thread of the pool,
        // which the tasks need.
        let creation = Task.detached { await Self.onNewThread { ObjectIdentifier(component.racing) } }
        let seen = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // Without blocking a thread of the pool until the creator is in the initializer.
                    while component.created.count == 0 { await Task.yield() }
                    return ObjectIdentifier(component.racing)
                }
            }
            var seen: Set<ObjectIdentifier> = [await creation.value]
            for await id in group { seen.insert(id) }
            return seen
        }
        #expect(seen.count == 1)
        #expect(component.created.count >= 2)
        #expect(component.released.count == 0)
        #expect(component.sawRace.withLock { $0 }, "no task created the module while the thread did")
    }

    /// What `body` returns, run on a thread of its own.
    private static func onNewThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("module initializers on two threads that need each other's modules trap with the path")
    func moduleCycleAcrossThreads() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CrossedModuleComponent()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.left }
            DispatchQueue.global().async(group: group) { _ = component.right }
            group.wait()
        }
        // Each thread creates the module the other is creating, whose initializer needs the module
        // that thread is creating.
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle: "))
        #expect(message.contains("LeftCrossedModule.init(_:)"))
        #expect(message.contains("RightCrossedModule.init(_:)"))
        #expect(message.contains("A module's initializer runs when its component first needs the module"))
    }

    @Test("registering a module that is already in use traps")
    func lateRegistrationTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let component = AppTestComponent()
            _ = component.network.api()
            component.module(NetworkTestModule.self) { StubNetworkTestModule($0) }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `AppTestComponent` registered `StubNetworkTestModule` for `NetworkTestModule` after `NetworkTestModule` was already in use"
            ))
        #expect(message.contains("before the first resolution"))
    }

    @Test("registering a module created for another component traps")
    func foreignModuleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let component = AppTestComponent()
            let other = AppTestComponent()
            component.module { _ in DataTestModule(other) }
        }
        #expect(
            standardError(of: result).contains(
                "was given the module `DataTestModule`, which was created for another component"))
    }
    #endif
}

// MARK: Fixtures

final class AppTestComponent: Component, @unchecked Sendable {
    let created = Counter()
    var data: DataTestModule { module() }
    var network: NetworkTestModule { module() }
}

struct TestSession {
    let api: String
}

class DataTestModule: Module<AppTestComponent> {
    required init(_ component: AppTestComponent) {
        component.created.increment()
        super.init(component)
    }

    func session() -> TestSession { transient { c in TestSession(api: c.network.api()) } }
}

class NetworkTestModule: Module<AppTestComponent> {
    func api() -> String { single { "live" } }
}

final class StubNetworkTestModule: NetworkTestModule {
    override func api() -> String { single { "stub" } }
}

final class NestingTestComponent: Component, @unchecked Sendable {
    var outer: OuterTestModule { module() }
    var inner: InnerTestModule { module() }
}

final class OuterTestModule: Module<NestingTestComponent> {
    required init(_ component: NestingTestComponent) {
        // Creates another module of the same component before this one exists.
        _ = component.inner
        super.init(component)
    }

    func thing() -> Thing { single { Thing() } }
}

final class InnerTestModule: Module<NestingTestComponent> {
    func thing() -> Thing { single { Thing() } }
}

/// A component whose module's initializer waits, within the watchdog's bound, until as many callers
/// as it is told create the module at once.
final class RaceTestComponent: Component, @unchecked Sendable {
    let created = Counter()
    let released = Counter()
    let built = Counter()
    let closed = Closed()
    /// Set before the first use: how many creators each initializer waits for.
    nonisolated(unsafe) var creatorsToAwait = 0
    /// Whether every initializer saw them.
    let sawRace = LockedBox(true)
    var racing: RaceTestModule { module() }
}

final class RaceTestModule: Module<RaceTestComponent> {
    let released: Counter

    required init(_ component: RaceTestComponent) {
        released = component.released
        super.init(component)
        _ = connection()
        component.created.increment()
        // Within the watchdog's bound: a test that waits for creators fails without them.
        let deadline = Date() + Double(defaultWatchdogSeconds)
        while component.created.count < component.creatorsToAwait, Date() < deadline { usleep(1_000) }
        if component.created.count < component.creatorsToAwait { component.sawRace.withLock { $0 = false } }
    }

    deinit { released.increment() }

    func connection() -> Resource {
        single { c in
            c.built.increment()
            return Resource("connection")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
}

/// Two modules whose initializers each need the other's module, once both have started.
final class CrossedModuleComponent: Component, @unchecked Sendable {
    let leftStarted = DispatchSemaphore(value: 0)
    let rightStarted = DispatchSemaphore(value: 0)
    var left: LeftCrossedModule { module() }
    var right: RightCrossedModule { module() }
}

final class LeftCrossedModule: Module<CrossedModuleComponent> {
    required init(_ component: CrossedModuleComponent) {
        super.init(component)
        component.leftStarted.signal()
        component.rightStarted.wait()
        _ = component.right
    }
}

final class RightCrossedModule: Module<CrossedModuleComponent> {
    required init(_ component: CrossedModuleComponent) {
        super.init(component)
        component.rightStarted.signal()
        component.leftStarted.wait()
        _ = component.left
    }
}

extension AppTestComponent {
    var stub: StubNetworkTestModule { module() }
}

final class GenericTestComponent: Component, @unchecked Sendable {
    var numbers: GenericTestModule<Int> { module() }
}

class GenericTestModule<Number: BinaryInteger>: Module<GenericTestComponent> {
    func value() -> Number { 1 }
}

final class SpecialTestModule: GenericTestModule<Int> {
    override func value() -> Int { 2 }
}
