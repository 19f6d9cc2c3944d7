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

    @Test("tasks that ask for a module while a thread creates it get that one module")
    func concurrentFirstUse() async {
        let component = GatedModuleComponent()
        // The initializer waits, within the watchdog's bound, until a task waits for the module,
        // so that the tasks ask while the module is being created, however busy the pool is.
        component.waitersToAwait = 1
        // The creator runs on a thread of its own: its initializer holds no thread of the pool,
        // which the tasks need.
        let creation = Task.detached { await Self.onNewThread { ObjectIdentifier(component.gated) } }
        let seen = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // Without blocking a thread of the pool until the creator is in the initializer.
                    while component.created.count == 0 { await Task.yield() }
                    return ObjectIdentifier(component.gated)
                }
            }
            var seen: Set<ObjectIdentifier> = [await creation.value]
            for await id in group { seen.insert(id) }
            return seen
        }
        #expect(seen.count == 1)
        #expect(component.created.count == 1)
        #expect(
            component.sawWaiters.withLock { $0 }, "no task waited for the module while it was being created")
    }

    /// What `body` returns, run on a thread of its own.
    private static func onNewThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    @Test("threads that ask for a module while another thread creates it wait for that one module")
    func waitersGetTheCreatorsModule() {
        let component = GatedModuleComponent()
        // The initializer goes on once the other three threads wait for the module.
        component.waitersToAwait = 3
        let modules = LockedBox<[ObjectIdentifier]>([])
        withWatchdog {
            onThreads(4) { index in
                // The others ask once the first is inside the module's initializer.
                if index > 0 { component.creating.wait() }
                let module = component.gated
                modules.withLock { $0.append(ObjectIdentifier(module)) }
            }
        }
        #expect(modules.withLock { $0.count } == 4)
        #expect(Set(modules.withLock { $0 }).count == 1)
        #expect(component.created.count == 1)
        #expect(component.sawWaiters.withLock { $0 }, "the threads did not wait for the module")
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
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle across threads"))
        #expect(message.contains("LeftCrossedModule.init(_:)"))
        #expect(message.contains("RightCrossedModule.init(_:)"))
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

class DataTestModule: Module<AppTestComponent>, @unchecked Sendable {
    required init(_ component: AppTestComponent) {
        component.created.increment()
        super.init(component)
    }

    func session() -> TestSession { transient { c in TestSession(api: c.network.api()) } }
}

class NetworkTestModule: Module<AppTestComponent>, @unchecked Sendable {
    func api() -> String { single { "live" } }
}

final class StubNetworkTestModule: NetworkTestModule, @unchecked Sendable {
    override func api() -> String { single { "stub" } }
}

final class NestingTestComponent: Component, @unchecked Sendable {
    var outer: OuterTestModule { module() }
    var inner: InnerTestModule { module() }
}

final class OuterTestModule: Module<NestingTestComponent>, @unchecked Sendable {
    required init(_ component: NestingTestComponent) {
        // Creates another module of the same component before this one exists.
        _ = component.inner
        super.init(component)
    }

    func thing() -> Thing { single { Thing() } }
}

final class InnerTestModule: Module<NestingTestComponent>, @unchecked Sendable {
    func thing() -> Thing { single { Thing() } }
}

/// A component whose module's initializer lets three threads ask for the module, then takes a
/// while.
final class GatedModuleComponent: Component, @unchecked Sendable {
    let created = Counter()
    let creating = DispatchSemaphore(value: 0)
    /// Set before the first use: how many callers the initializer waits for, as waiting for the
    /// module.
    nonisolated(unsafe) var waitersToAwait = 0
    /// Whether the initializer saw them wait.
    let sawWaiters = LockedBox(false)
    var gated: GatedModule { module() }
}

final class GatedModule: Module<GatedModuleComponent>, @unchecked Sendable {
    required init(_ component: GatedModuleComponent) {
        super.init(component)
        component.created.increment()
        for _ in 0..<3 { component.creating.signal() }
        // Within the watchdog's bound: a test that waits for waiters fails without them.
        let deadline = Date() + Double(defaultWatchdogSeconds)
        while component.callersWaiting(forModule: GatedModule.self) < component.waitersToAwait,
            Date() < deadline
        {
            usleep(1_000)
        }
        component.sawWaiters.withLock {
            $0 = component.callersWaiting(forModule: GatedModule.self) >= component.waitersToAwait
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

final class LeftCrossedModule: Module<CrossedModuleComponent>, @unchecked Sendable {
    required init(_ component: CrossedModuleComponent) {
        super.init(component)
        component.leftStarted.signal()
        component.rightStarted.wait()
        _ = component.right
    }
}

final class RightCrossedModule: Module<CrossedModuleComponent>, @unchecked Sendable {
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

class GenericTestModule<Number: BinaryInteger>: Module<GenericTestComponent>, @unchecked Sendable {
    func value() -> Number { 1 }
}

final class SpecialTestModule: GenericTestModule<Int>, @unchecked Sendable {
    override func value() -> Int { 2 }
}
