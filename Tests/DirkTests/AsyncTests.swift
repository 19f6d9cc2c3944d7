import Dirk
import DirkTestSupport
import Testing

@Suite("Async providers")
struct AsyncTests {
    @Test("an async single builds exactly once when many tasks ask at once, and they all get it")
    func asyncSingleBuildsOnce() async {
        let component = DatabaseComponent()
        let ids = await withAsyncWatchdog {
            await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<200 { group.addTask { ObjectIdentifier(await component.storage.database()) } }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
        }
        #expect(ids?.count == 1)
        #expect(component.opened.count == 1)
    }

    @Test("tasks waiting for an async single block no thread: more waiters than threads still finish")
    func waitersBlockNoThread() async {
        let component = DatabaseComponent()
        let gate = Latch()
        component.gate = gate
        await withAsyncWatchdog {
            await withTaskGroup(of: Void.self) { group in
                // Far more waiters than the cooperative pool has threads; if waiting blocked a
                // thread, the gate's opener could never run, and this would hang.
                for _ in 0..<64 { group.addTask { _ = await component.storage.gatedDatabase() } }
                group.addTask {
                    // One of the 64 builds, at the gate; the other 63 wait for it.
                    await component.waitUntilAsync(63, areWaitingFor: "StorageModule.gatedDatabase()")
                    gate.open()
                }
                await group.waitForAll()
            }
        }
        #expect(component.opened.count == 1)
    }

    @Test("an async factory that throws caches nothing, and the next call builds")
    func asyncThrowCachesNothing() async throws {
        let component = DatabaseComponent()
        component.failures.increment()
        await #expect(throws: Flaky.self) { try await component.storage.flakyDatabase() }
        let first = try await component.storage.flakyDatabase()
        #expect(try await component.storage.flakyDatabase() === first)
    }

    @Test("an async single whose build ends after its component was released is not kept by the module")
    func asyncBuildOutlivingItsComponent() async {
        // The build holds the last reference to the component once the caller lets it go. The
        // component's release, when the build lets go, must come after the instance is cached, so
        // that it empties the cache of the module that outlives it.
        let (gate, entered) = (Latch(), Latch())
        weak var released: DatabaseComponent?
        weak var built: Database?
        var component: DatabaseComponent? = DatabaseComponent()
        component!.gate = gate
        component!.entered = entered
        released = component
        let module = component!.storage
        do {
            let build = Task { await module.enteringGatedDatabase() }
            await entered.wait()
            component = nil
            gate.open()
            built = await build.value
        }
        #expect(released == nil)
        #expect(built == nil, "the module, which outlives its component, kept the released scope's instance")
        withExtendedLifetime(module) {}
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("two tasks whose async singles need each other stop with the cycle across threads")
    func cycleAcrossTasks() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CrossTaskComponent()
            async let left = component.cross.left()
            async let right = component.cross.right()
            _ = await (left, right)
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle across threads"), "\(message)")
    }
    #endif

    @Test("reset() drops an async single")
    func resetDropsAsyncSingle() async {
        let component = DatabaseComponent()
        let first = await component.storage.database()
        component.reset()
        #expect(await component.storage.database() !== first)
    }

    /// How a component lets go of an async single that was read many times.
    enum AsyncRelease: CaseIterable, Sendable {
        case reset
        case componentReleased
    }

    @Test(
        "a cached async single read a thousand times is the same instance, and goes at once with reset() or its component",
        arguments: AsyncRelease.allCases)
    func cachedAsyncSingleReleased(release: AsyncRelease) async {
        // Hits are read as a synchronous single's are, from spare references of the cell.
        var component: DatabaseComponent? = DatabaseComponent()
        weak var database: Database?
        do {
            let first = await component!.storage.database()
            database = first
            var same = 0
            for _ in 0..<1_000 where await component!.storage.database() === first { same += 1 }
            #expect(same == 1_000)
        }
        #expect(component?.opened.count == 1)
        switch release {
        case .reset:
            component!.reset()
            #expect(database == nil)
            _ = await component!.storage.database()
            #expect(component?.opened.count == 2, "the call after reset() builds again")
        case .componentReleased:
            component = nil
            #expect(database == nil)
        }
    }

    @Test("async transients build anew and may use sync providers")
    func asyncTransient() async {
        let component = DatabaseComponent()
        let first = await component.storage.connection()
        let second = await component.storage.connection()
        #expect(first !== second)
        #expect(first.database === second.database)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle through async singles traps with its path")
    func asyncCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = DatabaseComponent()
            _ = await component.storage.cyclic()
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: StorageModule.cyclic() -> StorageModule.partner() -> StorageModule.cyclic()"
            ))
    }

    @Test("a single that needs itself, in a task that outlived the resolution that started it, traps")
    func cycleInTaskThatOutlivedItsResolution() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = DatabaseComponent()
            let gate = Latch()
            component.gate = gate
            component.entered = Latch()
            let task = await component.storage.startsSelfNeedingTask()
            // The resolution that started the task has ended; the task's single is still building.
            gate.open()
            _ = await task.value
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: StorageModule.selfNeeding() -> StorageModule.selfNeeding()"))
    }
    #endif
}

// MARK: Fixtures

final class Database: @unchecked Sendable {}

final class Connection: @unchecked Sendable {
    let database: Database

    init(database: Database) {
        self.database = database
    }
}

/// Two async singles that each need the other, built by two tasks at once.
final class CrossTaskComponent: Component, @unchecked Sendable {
    let (leftStarted, rightStarted) = (Latch(), Latch())
    var cross: CrossTaskModule { module() }
}

final class CrossTaskModule: Module<CrossTaskComponent> {
    func left() async -> Database {
        await single { c in
            c.leftStarted.open()
            await c.rightStarted.wait()
            return await c.cross.right()
        }
    }

    func right() async -> Database {
        await single { c in
            c.rightStarted.open()
            await c.leftStarted.wait()
            return await c.cross.left()
        }
    }
}

final class DatabaseComponent: Component, @unchecked Sendable {
    let opened = Counter()
    let failures = Counter()
    nonisolated(unsafe) var gate: Latch?
    nonisolated(unsafe) var entered: Latch?
    var storage: StorageModule { module() }
}

/// Restates `@unchecked Sendable`, which a module may: a test sends it to a task that outlives its
/// component.
final class StorageModule: Module<DatabaseComponent>, @unchecked Sendable {
    /// Starts, in an unstructured task, `selfNeeding()`, and returns once its build has begun, as
    /// part of this resolution.
    func startsSelfNeedingTask() async -> Task<Database, Never> {
        await transient { c in
            let task = Task { await c.storage.selfNeeding() }
            await c.entered?.wait()
            return task
        }
    }

    /// Needs itself once `gate` opens.
    func selfNeeding() async -> Database {
        await single { c in
            c.entered?.open()
            await c.gate?.wait()
            return await c.storage.selfNeeding()
        }
    }

    func database() async -> Database {
        await single { c in
            c.opened.increment()
            await Task.yield()
            return Database()
        }
    }

    /// Opens `entered` once its build has begun, then builds once `gate` opens.
    func enteringGatedDatabase() async -> Database {
        await single { c in
            c.entered?.open()
            await c.gate?.wait()
            return Database()
        }
    }

    func gatedDatabase() async -> Database {
        await single { c in
            c.opened.increment()
            await c.gate?.wait()
            return Database()
        }
    }

    func flakyDatabase() async throws -> Database {
        try await single { c in
            await Task.yield()
            if c.failures.count > 0 {
                _ = c.failures.increment()
                if c.failures.count == 2 { throw Flaky() }
            }
            return Database()
        }
    }

    func connection() async -> Connection {
        await transient { c in Connection(database: await c.storage.database()) }
    }

    func cyclic() async -> Database { await single { c in await c.storage.partner() } }
    func partner() async -> Database { await single { c in await c.storage.cyclic() } }
}

@Suite("Async strategies take what their synchronous siblings take")
struct AsyncOverloadTests {
    @Test("an async single's configure: completes the instance, and a cycle through it resolves in its task")
    func asyncConfigure() async {
        let component = AsyncPairComponent()
        let parent = await component.pairs.parent()
        #expect(parent.child?.parent === parent)
        #expect(await component.pairs.child() === parent.child)
    }

    @Test("async transient and scoped take factories that need no component")
    func factoriesWithoutTheComponent() async {
        let component = AsyncPairComponent()
        let first = await component.pairs.fresh()
        #expect(await component.pairs.fresh() !== first)
        let pair = await component.pairs.scopedPair()
        #expect(pair.0 === pair.1)
    }

    @Test(
        "an async fresh builds new instances of the async and synchronous singles it calls directly, configured, and leaves the cache alone"
    )
    func asyncFresh() async {
        let component = AsyncPairComponent()
        let cached = await component.pairs.parent()
        let (fresh, plain) = await component.pairs.fresh { module in
            (await module.parent(), module.plain())
        }
        #expect(fresh !== cached)
        #expect(fresh.child != nil, "its configure: ran")
        #expect(fresh.child === cached.child, "a dependency of the fresh instance is the cached one")
        #expect(plain !== component.pairs.plain())
        #expect(await component.pairs.parent() === cached)
        // Only the calls the closure makes directly build anew: the child's parent is the cached one.
        let child = await component.pairs.fresh { await $0.child() }
        #expect(child !== cached.child)
        #expect(child.parent === cached)
    }

    @Test("an async fresh reaches only its own task: neither a task it starts nor a child task builds afresh")
    func asyncFreshStaysInItsTask() async {
        let component = AsyncPairComponent()
        let cachedPlain = component.pairs.plain()
        let cachedParent = await component.pairs.parent()
        let (plain, parent) = await component.pairs.fresh { module in
            async let parent = module.parent()
            return (await Task { module.plain() }.value, await parent)
        }
        #expect(plain === cachedPlain)
        #expect(parent === cachedParent)
    }

    @Test("a trace whose closure throws gives its observers back, sync or async")
    func throwingTraceEnds() async {
        let component = AsyncPairComponent()
        #expect(throws: TraceFailure.self) { try component.trace { throw TraceFailure() } }
        await #expect(throws: TraceFailure.self) {
            try await component.trace { () async throws(TraceFailure) in
                _ = await component.pairs.parent()
                throw TraceFailure()
            }
        }
        #expect(component.observerCount == 0)
    }

    @Test("an async trace keeps each child task's calls under the call that made them")
    func concurrentTraceKeepsItsTree() async {
        for _ in 0..<20 {
            let component = AsyncPairComponent()
            let (_, trace) = await component.trace { () async -> Int in
                async let first = component.pairs.parentAndPlain()
                async let second = component.pairs.parentAndPlain()
                _ = await (first, second)
                return 0
            }
            // Each call at depth zero begins a block of the calls it made, whichever began first.
            var blocks: [[Substring]] = []
            for line in trace.split(separator: "\n") {
                if line.hasPrefix(" ") {
                    blocks[blocks.count - 1].append(line)
                } else {
                    blocks.append([line])
                }
            }
            #expect(blocks.count == 2)
            for block in blocks {
                #expect(block[0] == "AsyncPairModule.parentAndPlain() [async transient] new")
                #expect(block.count { $0.hasPrefix("  AsyncPairModule.plain() [single] ") } == 1)
                #expect(block.count { $0.hasPrefix("  AsyncPairModule.parent() [async single] ") } == 1)
            }
        }
    }

    @Test("a trace that a task outlives lets its component go, and takes no call made after it returned")
    func traceOutlivedByATask() async {
        // Recording keeps the component's calls on the path that traces see, so that the task's
        // call meets the trace it inherited, which has ended.
        var component: AsyncPairComponent? = AsyncPairComponent().startRecordingDependencies()
        weak var released: AsyncPairComponent?
        released = component
        let (started, called, ended) = (Latch(), Latch(), Latch())
        // The task inherits the trace, as a task started inside its closure does, and calls a
        // provider after the trace has ended, then outlives the component.
        let weakly = WeakPairComponent(component: component)
        let (task, trace) = component!.trace {
            Task {
                await started.wait()
                _ = await weakly.component?.pairs.parent()
                called.open()
                await ended.wait()
            }
        }
        started.open()
        await called.wait()
        component = nil
        #expect(released == nil, "the trace let its component go")
        ended.open()
        await task.value
        #expect(trace == "")
    }

    @Test(
        "an async trace shows async calls and the synchronous calls they make, indented, and whether each built"
    )
    func asyncTrace() async {
        let component = AsyncPairComponent()
        let (parent, trace) = await component.trace { await component.pairs.parent() }
        #expect(parent.child?.parent === parent)
        #expect(
            trace == """
                AsyncPairModule.parent() [async single] new
                  AsyncPairModule.child() [async single] new
                    AsyncPairModule.parent() [async single] cached

                """)
        let (_, again) = await component.trace { await component.pairs.parentAndPlain() }
        #expect(
            again == """
                AsyncPairModule.parentAndPlain() [async transient] new
                  AsyncPairModule.plain() [single] new
                  AsyncPairModule.parent() [async single] cached

                """)
        // The calls of a child task that the closure starts are its calls too.
        let (_, child) = await component.trace { () async -> AsyncParent in
            async let parent = component.pairs.parent()
            return await parent
        }
        #expect(child == "AsyncPairModule.parent() [async single] cached\n")
        // A synchronous closure in an async context still takes the synchronous form.
        let (_, plain) = component.trace { component.pairs.fresh { $0.plain() } }
        #expect(plain == "AsyncPairModule.plain() [single] new\n")
    }
}

final class AsyncParent: @unchecked Sendable {
    // Set once, by `configure:`, before any other task sees the instance.
    var child: AsyncChild?
}

final class AsyncChild: @unchecked Sendable {
    // Set once, in the initializer; weak, since the parent holds the child.
    weak var parent: AsyncParent?

    init(parent: AsyncParent) {
        self.parent = parent
    }
}

final class AsyncPairComponent: Component, @unchecked Sendable {
    var pairs: AsyncPairModule { module() }
}

/// Restates `@unchecked Sendable`, which a module may: a test sends the module that `fresh` gives
/// its closure to a task.
final class AsyncPairModule: Module<AsyncPairComponent>, @unchecked Sendable {
    func parent() async -> AsyncParent {
        await single {
            await Task.yield()
            return AsyncParent()
        } configure: { parent, c in
            parent.child = await c.pairs.child()
        }
    }

    func child() async -> AsyncChild { await single { c in AsyncChild(parent: await c.pairs.parent()) } }

    func fresh() async -> AsyncParent {
        await transient {
            await Task.yield()
            return AsyncParent()
        }
    }

    func scopedOne() async -> AsyncParent {
        await scoped {
            await Task.yield()
            return AsyncParent()
        }
    }

    func plain() -> AsyncParent { single { AsyncParent() } }

    func parentAndPlain() async -> AsyncParent {
        await transient { c in
            _ = c.pairs.plain()
            return await c.pairs.parent()
        }
    }

    func scopedPair() async -> (AsyncParent, AsyncParent) {
        await transient { c in (await c.pairs.scopedOne(), await c.pairs.scopedOne()) }
    }
}

struct TraceFailure: Error {}

struct WeakPairComponent: Sendable {
    weak var component: AsyncPairComponent?
}
