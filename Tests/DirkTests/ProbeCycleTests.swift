import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("Cycles through handles and tasks, and false cycles")
struct ProbeCycleTests {
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle through a Lazy and a single that spans two threads stops with its path instead of hanging")
    func lazyCycleAcrossThreads() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = HandleCycleComponent()
            let lazy = component.cycle.lazyNeedingFirst()
            component.cycle.handle = lazy
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.cycle.first() }
            DispatchQueue.global().async(group: group) { _ = lazy.value }
            group.wait()
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle across threads:"))
        #expect(message.contains("HandleCycleModule.first()"))
        #expect(message.contains("Lazy<Thing>"))
        #expect(message.contains("read it after the provider that built the handle has returned"))
    }
    #endif

    @Test("an unstructured task started in an async factory waits for the instance instead of trapping")
    func unstructuredTaskWaits() async {
        let component = TaskCycleComponent()
        let outcome = await withAsyncWatchdog {
            let outer = await component.tasks.database()
            let inner = await component.tasks.started.withLock { $0 }!.value
            return (outer, inner)
        }
        #expect(component.tasks.sawTaskWaiting.withLock { $0 }, "the task never waited for the build")
        #expect(outcome.map { $0.0 === $0.1 } == true)
        #expect(component.tasks.builds.count == 1)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle through async singles advises configure:, which an async single takes")
    func asyncCycleAdvice() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = DatabaseComponent()
            _ = await component.storage.cyclic()
            withExtendedLifetime(component) {}
        }
        let message = standardError(of: result)
        #expect(message.contains("dependency cycle: StorageModule.cyclic() -> StorageModule.partner()"))
        #expect(message.contains("set the reference in a `configure:` closure passed to its `async single`"))
    }

    @Test("a module initializer that resolves its own module's provider gets advice for modules")
    func moduleInitializerAdvice() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            _ = SelfNeedingComponent().needing
        }
        let message = standardError(of: result)
        #expect(
            message.contains("dependency cycle: SelfNeedingModule.init(_:) -> SelfNeedingModule.init(_:)"))
        #expect(message.contains("A module's initializer runs when its component first needs the module"))
        #expect(!message.contains("configure:"))
    }
    #endif
}

// MARK: Fixtures

final class HandleCycleComponent: Component, @unchecked Sendable {
    var cycle: HandleCycleModule { module() }
}

final class HandleCycleModule: Module<HandleCycleComponent> {
    nonisolated(unsafe) var handle: Lazy<Thing>?
    let firstStarted = DispatchSemaphore(value: 0)
    let lazyStarted = DispatchSemaphore(value: 0)

    /// Builds, waits until the other thread resolves the Lazy, then reads the Lazy.
    func first() -> Thing {
        single { c in
            c.cycle.firstStarted.signal()
            c.cycle.lazyStarted.wait()
            return c.cycle.handle!.value
        }
    }

    /// A Lazy whose resolution, on the other thread, needs `first()`.
    func lazyNeedingFirst() -> Lazy<Thing> { component.lazy { $0.cycle.second() } }

    func second() -> Thing {
        single { c in
            c.cycle.lazyStarted.signal()
            c.cycle.firstStarted.wait()
            return c.cycle.first()
        }
    }
}

final class TaskCycleComponent: Component, @unchecked Sendable {
    var tasks: TaskCycleModule { module() }
}

final class TaskCycleModule: Module<TaskCycleComponent> {
    let builds = Counter()
    let started = LockedBox<Task<Database, Never>?>(nil)
    /// Whether the factory saw the task it started wait for the build.
    let sawTaskWaiting = LockedBox(false)

    /// Starts a task that asks for the instance being built, and does not await it; returns only
    /// once that task waits for this build (or after a generous bound), so that the task cannot
    /// take the instance from the cache instead.
    func database() async -> Database {
        await single { c in
            c.tasks.builds.increment()
            let task = Task { await c.tasks.database() }
            c.tasks.started.withLock { $0 = task }
            for _ in 0..<30_000 {
                if c.node("TaskCycleModule.database()")?.waitingCallers == 1 {
                    c.tasks.sawTaskWaiting.withLock { $0 = true }
                    break
                }
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            return Database()
        }
    }
}

final class SelfNeedingComponent: Component, @unchecked Sendable {
    var needing: SelfNeedingModule { module() }
}

final class SelfNeedingModule: Module<SelfNeedingComponent> {
    required init(_ component: SelfNeedingComponent) {
        super.init(component)
        _ = component.needing.thing()
    }

    func thing() -> Thing { single { Thing() } }
}
