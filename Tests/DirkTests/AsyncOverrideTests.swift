import Dirk
import DirkTestSupport
import Testing

@Suite("Overriding one async provider without a subclass")
struct AsyncOverrideTests {
    @Test("an overridden async single is built once per component, by the override's factory")
    func overriddenAsyncSingleBuildsOnce() async {
        let built = Counter()
        let component = await BackendComponent().overriding {
            await $0.backend.pool()
        } with: {
            await Task.yield()
            return FakePool(number: built.increment())
        }
        let first = await component.backend.pool()
        #expect(first is FakePool)
        #expect(await component.backend.pool() === first)
        #expect(built.count == 1)
        #expect(component.liveBuilds.count == 0, "the original factory never runs")
    }

    @Test("an overridden async transient calls the override's factory on every call")
    func overriddenAsyncTransientBuildsEachTime() async {
        let built = Counter()
        let component = await BackendComponent().overriding {
            await $0.backend.connection()
        } with: {
            PooledConnection(pool: FakePool(number: built.increment()))
        }
        let (first, second) = (await component.backend.connection(), await component.backend.connection())
        #expect(first !== second)
        #expect(first.pool is FakePool && second.pool is FakePool)
        #expect(built.count == 3, "once while the override is set up, then once per call")
    }

    @Test("an overridden async scoped gives one resolution one instance, from the override's factory")
    func overriddenAsyncScopedIsPerResolution() async {
        let built = Counter()
        let component = await BackendComponent().overriding {
            await $0.backend.unitOfWork()
        } with: {
            UnitOfWork(number: built.increment())
        }
        let pair = await component.backend.pairOfWork()
        #expect(pair.0 === pair.1, "one resolution, one instance")
        #expect(pair.0.number > 0, "built by the override")
        #expect(component.liveBuilds.count == 0)
    }

    @Test("the provider calls that the override's factory makes are ordinary, and are not overridden")
    func factoryCallsAreOrdinary() async {
        let component = await BackendComponent().overriding {
            await $0.backend.connection()
        } with: { c in
            PooledConnection(pool: await c.backend.pool())
        }
        let connection = await component.backend.connection()
        #expect(connection.pool is LivePool)
        let pool = await component.backend.pool()
        #expect(connection.pool === pool, "the single the factory used is cached")
        #expect(component.liveBuilds.count == 1)
    }

    @Test("a child reaches its parent's overridden async provider")
    func childrenSeeTheAsyncOverride() async {
        let app = await BackendComponent().overriding {
            await $0.backend.pool()
        } with: {
            FakePool(number: 7)
        }
        let request = BackendRequestComponent().parent(app)
        let pool = await request.handlers.poolThroughParent()
        #expect((pool as? FakePool)?.number == 7)
    }

    @Test("the override is set up by its own task only: another task's provider calls meanwhile are ordinary")
    func otherTasksAreNotCaptured() async {
        let component = BackendComponent()
        let (entered, gate) = (Latch(), Latch())
        let overriding = Task {
            await component.overriding { c in
                entered.open()
                await gate.wait()
                return await c.backend.pool()
            } with: {
                FakePool(number: 1) as any Pool
            }
        }
        await entered.wait()
        // Resolved while the capture is under way, by another task: neither captured (which would
        // stop the program, the closure then calling a second provider) nor overridden.
        let work = await component.backend.unitOfWork()
        gate.open()
        _ = await overriding.value
        #expect(work.number < 0, "built by the original factory")
        #expect(await component.backend.pool() is FakePool)
    }

    @Test("the synchronous form is still the one chosen, with no await, in an async test")
    func synchronousFormInAsyncContext() async {
        let component = BackendComponent().overriding {
            $0.backend.settings()
        } with: {
            Settings(name: "fake")
        }
        #expect(component.backend.settings().name == "fake")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("an async override of a synchronous provider stops with a message that says to drop the await")
    func asyncOverrideOfSynchronousProvider() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            _ = await BackendComponent().overriding { c in
                await Task.yield()
                return c.backend.settings()
            } with: {
                await Task.yield()
                return Settings(name: "fake")
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "the async `BackendComponent.overriding(_:with:)` called `BackendModule.settings()`"))
        #expect(message.contains("whose strategy is synchronous and so cannot await the override's factory"))
        #expect(message.contains("with no `await` in either closure"))
        #expect(message.contains("DirkTests/AsyncOverrideTests.swift:"))
    }

    @Test("an async override of an async single already built stops the program")
    func lateAsyncOverride() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = BackendComponent()
            _ = await component.backend.pool()
            await component.overriding {
                await $0.backend.pool()
            } with: {
                FakePool(number: 1)
            }
        }
        #expect(
            standardError(of: result).contains(
                "overrode `BackendModule.pool()` after that provider was already used"))
    }

    @Test("an async override's closure that calls no provider stops with the async example")
    func asyncOverrideCallingNoProvider() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            await BackendComponent().overriding { _ in
                await Task.yield()
                return FakePool(number: 1) as any Pool
            } with: {
                FakePool(number: 1) as any Pool
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("called no provider"))
        #expect(message.contains("through the component it receives: `await $0.` then a module accessor"))
    }

    @Test("an async override's factory that throws what its provider cannot is named by file and line")
    func asyncOverrideForeignError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            await BackendComponent().overriding {
                try await $0.backend.checkedPool()
            } with: {
                throw UnexpectedBackendError()
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("got an error of type `UnexpectedBackendError`, which it cannot throw"))
        #expect(
            message.contains(
                "Only the factory of the `overriding(_:with:)` of `BackendModule.checkedPool()` at DirkTests/AsyncOverrideTests.swift:"
            ))
    }

    @Test(
        "an async provider whose factory does not await has a synchronous strategy, which the message explains"
    )
    func asyncProviderWithSynchronousStrategy() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            await BackendComponent().overriding {
                await $0.backend.quickPool()
            } with: {
                await Task.yield()
                return FakePool(number: 1) as any Pool
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("called `BackendModule.quickPool()`, whose strategy is synchronous"))
        #expect(
            message.contains("If it is async, its strategy is synchronous because its factory does not await")
        )
    }

    @Test(
        "a second provider called from a sibling task while the first resolves through its factory stops the program"
    )
    func siblingTasksCallingTwoProviders() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let (capturing, never) = (Latch(), Latch())
            await BackendComponent().overriding { c in
                async let pool = c.backend.pool()
                async let work: UnitOfWork = {
                    await capturing.wait()
                    return await c.backend.unitOfWork()
                }()
                _ = await work
                return await pool
            } with: {
                // `pool()` was captured and resolves through this factory, which waits for
                // ever: the sibling's call stops the program first.
                capturing.open()
                await never.wait()
                return FakePool(number: 1) as any Pool
            }
        }
        #expect(
            standardError(of: result).contains(
                "called `BackendModule.pool()` and then `BackendModule.unitOfWork()`"))
    }
    #endif

    @Test("a task started by the override's factory that outlives the override makes ordinary calls")
    func taskEscapingTheFactoryIsOrdinary() async {
        // Recording keeps the component watched, so that the late calls take the path that
        // looks for an override being set up.
        let component = BackendComponent().startRecordingDependencies()
        let done = Latch()
        let late = LockedBox<(Settings, UnitOfWork)?>(nil)
        await component.overriding {
            await $0.backend.pool()
        } with: { c in
            Task {
                try? await Task.sleep(nanoseconds: 20_000_000)
                let found = (c.backend.settings(), await c.backend.unitOfWork())
                late.withLock { $0 = found }
                done.open()
            }
            return FakePool(number: 1) as any Pool
        }
        await done.wait()
        #expect(late.withLock { $0 }?.0.name == "live")
        #expect((late.withLock { $0 }?.1.number ?? 0) < 0, "built by the original factory")
        #expect(await component.backend.pool() is FakePool)
    }

    @Test("a task started by the override's closure that outlives the override makes ordinary calls")
    func taskEscapingTheClosureIsOrdinary() async {
        let component = BackendComponent().startRecordingDependencies()
        let (overridden, done) = (Latch(), Latch())
        let late = LockedBox<UnitOfWork?>(nil)
        await component.overriding { c in
            Task {
                await overridden.wait()
                let work = await c.backend.unitOfWork()
                late.withLock { $0 = work }
                done.open()
            }
            return await c.backend.pool()
        } with: {
            FakePool(number: 1) as any Pool
        }
        overridden.open()
        await done.wait()
        #expect((late.withLock { $0 }?.number ?? 0) < 0, "built by the original factory")
        #expect(await component.backend.pool() is FakePool)
    }

    @Test("the override's factory may use child tasks, and the providers it calls are ordinary")
    func factoryUsesChildTasks() async {
        let component = await BackendComponent().overriding {
            await $0.backend.connection()
        } with: { c in
            async let pool = c.backend.pool()
            let settings = await withTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { c.backend.settings().name } }
                return await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(settings == ["live"])
            return PooledConnection(pool: await pool)
        }
        let connection = await component.backend.connection()
        #expect(connection.pool is LivePool)
        let pool = await component.backend.pool()
        #expect(connection.pool === pool)
        #expect(component.liveBuilds.count == 1)
    }

    @Test("a synchronous override, then an async one whose factory uses it")
    func synchronousThenAsync() async {
        let component = await BackendComponent()
            .overriding {
                $0.backend.settings()
            } with: {
                Settings(name: "fake")
            }
            .overriding {
                await $0.backend.pool()
            } with: { c in
                FakePool(number: c.backend.settings().name.count) as any Pool
            }
        #expect((await component.backend.pool() as? FakePool)?.number == 4)
    }

    @Test("an async provider reached through an AsyncLazy is overridden, and reset() keeps the override")
    func throughAsyncLazyAndReset() async {
        let built = Counter()
        let component = await BackendComponent().overriding {
            await $0.backend.lazyPool().value
        } with: {
            FakePool(number: built.increment()) as any Pool
        }
        #expect((await component.backend.pool() as? FakePool)?.number == 1)
        component.reset()
        #expect((await component.backend.pool() as? FakePool)?.number == 2)
        #expect(component.liveBuilds.count == 0)
    }

    @Test(
        "async overrides of different providers of one component, set up at once beside a child's resolution")
    func concurrentAsyncOverrides() async {
        for _ in 0..<stressRounds(50) {
            let component = BackendComponent()
            let child = BackendRequestComponent().parent(component)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await component.overriding {
                        await $0.backend.pool()
                    } with: {
                        FakePool(number: 1) as any Pool
                    }
                }
                group.addTask {
                    await component.overriding {
                        await $0.backend.unitOfWork()
                    } with: {
                        UnitOfWork(number: 2)
                    }
                }
                group.addTask {
                    await component.overriding {
                        try await $0.backend.checkedPool()
                    } with: {
                        FakePool(number: 3) as any Pool
                    }
                }
                group.addTask { _ = await child.handlers.settingsThroughParent() }
            }
            #expect(await component.backend.pool() is FakePool)
            #expect(await component.backend.unitOfWork().number == 2)
            #expect((try? await component.backend.checkedPool()) is FakePool)
        }
    }
}

/// The async form from the main actor, as a view model's test calls it.
@Suite("Overriding an async provider from the main actor")
@MainActor
struct AsyncOverrideOnMainActorTests {
    @Test("the async form compiles and works in a main-actor test")
    func fromMainActor() async {
        let component = await BackendComponent().overriding {
            await $0.backend.pool()
        } with: {
            FakePool(number: 5) as any Pool
        }
        #expect((await component.backend.pool() as? FakePool)?.number == 5)
    }
}

// MARK: Fixtures

protocol Pool: AnyObject, Sendable {}

final class LivePool: Pool {}

final class FakePool: Pool {
    let number: Int
    init(number: Int) { self.number = number }
}

final class PooledConnection: Sendable {
    let pool: any Pool
    init(pool: any Pool) { self.pool = pool }
}

final class UnitOfWork: Sendable {
    let number: Int
    init(number: Int) { self.number = number }
}

final class Settings: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

struct BackendError: Error {}
struct UnexpectedBackendError: Error {}

final class BackendComponent: Component, @unchecked Sendable {
    /// Builds by the original factories of `pool()` and `unitOfWork()`.
    let liveBuilds = Counter()
    var backend: BackendModule { module() }
}

final class BackendModule: Module<BackendComponent> {
    func pool() async -> any Pool {
        await single { c in
            _ = c.liveBuilds.increment()
            await Task.yield()
            return LivePool() as any Pool
        }
    }

    func checkedPool() async throws(BackendError) -> any Pool {
        try await single { () async throws(BackendError) in LivePool() as any Pool }
    }

    func connection() async -> PooledConnection {
        await transient { c in PooledConnection(pool: await c.backend.pool()) }
    }

    func unitOfWork() async -> UnitOfWork {
        await scoped { c in
            await Task.yield()
            return UnitOfWork(number: -c.liveBuilds.increment())
        }
    }

    /// Two calls of `unitOfWork()` in one resolution.
    func pairOfWork() async -> (UnitOfWork, UnitOfWork) {
        await transient { c in (await c.backend.unitOfWork(), await c.backend.unitOfWork()) }
    }

    func settings() -> Settings { single { Settings(name: "live") } }

    /// Async, but its factory does not await: Swift picks the synchronous strategy.
    func quickPool() async -> any Pool { single { LivePool() as any Pool } }

    func lazyPool() -> AsyncLazy<any Pool, Never> { component.lazy { await $0.backend.pool() } }
}

final class BackendRequestComponent: Component, @unchecked Sendable {
    var app: BackendComponent { parent() }
    var handlers: BackendHandlerModule { module() }
}

final class BackendHandlerModule: Module<BackendRequestComponent> {
    func poolThroughParent() async -> any Pool { await transient { c in await c.app.backend.pool() } }

    func settingsThroughParent() async -> Settings {
        await transient { c in
            await Task.yield()
            return c.app.backend.settings()
        }
    }
}
