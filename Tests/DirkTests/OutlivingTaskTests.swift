import Dirk
import DirkTestSupport
import Testing

/// Unstructured tasks that an async factory starts and that outlive the resolution that started
/// them: they keep their own steps and scope, and their `reset()` traps only while the provider
/// that started them runs.
@Suite("Tasks that outlive the resolution that started them")
struct OutlivingTaskTests {
    @Test(
        "tasks started one after another, each its own resolution, each get and release their own scoped instance"
    )
    func scopedPerResolutionAfterAddressReuse() async {
        // A finished task's address is often given to the next task: each must still be a
        // resolution of its own, not the finished task's.
        let component = OutlivingComponent()
        component.latch = Latch()
        let rounds = 2_000
        await withAsyncWatchdog {
            // The task that resolves `startsSpawner` ends, and is released, before the spawner starts.
            let spawner = await Task { await component.outliving.startsSpawner(rounds: rounds) }.value
            component.latch!.open()
            await spawner.value
        }
        #expect(component.made.count == rounds, "each resolution gets its own scoped instance")
        #expect(component.released.count == rounds, "and releases it when it ends")
    }

    @Test(
        "a synchronous scoped provider gives one instance across an await, in a task that outlived its resolution"
    )
    func syncScopedAcrossAwaitAfterResolutionEnded() async {
        let component = OutlivingComponent()
        component.latch = Latch()
        let sameInstance = LockedBox<Bool?>(nil)
        await withAsyncWatchdog {
            let task = await component.outliving.startsWaitingTask { c in
                let before = c.outliving.syncScoped()
                await Task.yield()
                let after = c.outliving.syncScoped()
                sameInstance.withLock { $0 = before === after }
            }
            component.latch!.open()
            await task.value
        }
        #expect(sameInstance.withLock { $0 } == true)
    }

    @Test(
        "child tasks of a task that outlived its resolution share one scoped instance, as in any resolution")
    func childTasksShareScopeAfterOutliving() async {
        let component = OutlivingComponent()
        component.latch = Latch()
        let sameInstance = LockedBox<Bool?>(nil)
        await withAsyncWatchdog {
            let task = await component.outliving.startsWaitingTask { c in
                async let first = c.outliving.scopedCounted()
                async let second = c.outliving.scopedCounted()
                let (a, b) = await (first, second)
                sameInstance.withLock { $0 = a === b }
            }
            component.latch!.open()
            await task.value
        }
        #expect(sameInstance.withLock { $0 } == true)
        #expect(component.made.count == 1)
    }

    @Test(
        "a provider whose task calls it again, generation after generation, keeps no finished generation's agent"
    )
    func relayKeepsNoFinishedAgents() async {
        let component = OutlivingComponent()
        component.latch = Latch()
        let generations = 200
        let agents = LockedBox<[WeakObject]>([])
        let alive = await withAsyncWatchdog {
            _ = await component.outliving.relay(generations, agents: agents)
            await component.resetDone.wait()
            // The finished generations' tasks are released soon after they end; wait for that,
            // for as long as the watchdog allows.
            var alive = Int.max
            while alive > 2, !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 10_000_000)
                alive = agents.withLock { $0.filter { $0.object != nil }.count }
            }
            component.latch!.open()
            return alive
        }
        #expect(agents.withLock { $0.count } == generations + 1)
        #expect((alive ?? .max) <= 2, "the last generation's agent, and at most its starter's")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test(
        "reset() traps in a task started two ended tasks down from a provider of the component that still runs"
    )
    func resetTwoEndedTasksDown() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = OutlivingComponent()
            _ = await component.outliving.holdsWhileHopping()
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `OutlivingComponent.reset()` was called while `OutlivingModule.holdsWhileHopping()` of that component was being resolved"
            ))
    }

    @Test(
        "reset() in a task whose starting provider returned is allowed while another provider of the component runs"
    )
    func resetWhileAnotherProviderRuns() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // A hang ends in success too, but with the watchdog's line, which the check below sees.
            armExitTestWatchdog()
            let outer = OuterComponent()
            let inner = outer.inner
            let gate = Latch()
            inner.latch = Latch()
            inner.gate = gate
            let run = Task { await outer.outer.startsResetterThenWaits() }
            // The resetter's task resets while `slow()` waits at the gate.
            await inner.resetDone.wait()
            gate.open()
            await run.value
        }
        let message = standardError(of: result)
        #expect(message.isEmpty, "\(message)")
    }

    @Test(
        "reset() through another component's provider, in a child task of a provider of a task that outlived its resolution, traps"
    )
    func resetInChildTaskOfOutlivingTask() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = OutlivingComponent()
            let other = ResetterComponent()
            other.target = component
            component.latch = Latch()
            let task = await component.outliving.startsWaitingTask { _ in
                async let reset = other.resetter.resetsTarget()
                _ = await reset
            }
            component.latch!.open()
            await task.value
            withExtendedLifetime(other) {}
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `OutlivingComponent.reset()` was called while `OutlivingModule.waits(_:)` of that component was being resolved"
            ))
    }

    @Test(
        "a Task { } that outlives the step that started it and calls a provider after shutdown() began is refused: shutdown waited only for the resolution under way"
    )
    func outlivingTaskRefusedAfterShutdown() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = OutlivingComponent()
            component.latch = Latch()
            let task = await component.outliving.startsLateCaller()
            try? await component.shutdown()
            component.latch!.open()
            await task.value
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `OutlivingModule.syncScoped()` was called after its component `OutlivingComponent` was shut down"
            ))
    }
    #endif
}

// MARK: Fixtures

/// An object held weakly.
final class WeakObject: @unchecked Sendable {
    weak var object: AnyObject?

    init(_ object: AnyObject?) {
        self.object = object
    }
}

/// An instance that counts its making and its release.
final class Counted: Sendable {
    let released: Counter

    init(made: Counter, released: Counter) {
        made.increment()
        self.released = released
    }

    deinit { released.increment() }
}

final class OutlivingComponent: Component, @unchecked Sendable {
    let made = Counter()
    let released = Counter()
    let entered = Latch()
    let resetDone = Latch()
    /// The agents of the tasks in which `hop(_:)` ran, first hop first.
    let hopAgents = LockedBox<[WeakObject]>([])
    nonisolated(unsafe) var latch: Latch?
    nonisolated(unsafe) var gate: Latch?
    var outliving: OutlivingModule { module() }
}

final class OutlivingModule: Module<OutlivingComponent> {
    /// Returns an unstructured task that, once `latch` opens, starts `rounds` tasks one after
    /// another, each resolving `scopedCounted()`.
    func startsSpawner(rounds: Int) async -> Task<Void, Never> {
        await transient { c in
            await Task.yield()
            let latch = c.latch!
            return Task {
                await latch.wait()
                for _ in 0..<rounds {
                    await Task { _ = await c.outliving.scopedCounted() }.value
                }
            }
        }
    }

    func scopedCounted() async -> Counted {
        await scoped { c in
            await Task.yield()
            return Counted(made: c.made, released: c.released)
        }
    }

    func syncScoped() -> Thing { scoped { c in Thing(c.made) } }

    /// Starts a task that hops twice through `hop(_:)` and ends, then waits until the last hop's
    /// task has reset the component.
    func holdsWhileHopping() async -> Thing {
        await transient { c in
            await Task { _ = await c.outliving.hop(2) }.value
            await c.resetDone.wait()
            return Thing()
        }
    }

    /// Starts a task and returns at once: the task hops `remaining - 1` more times, and the last
    /// one, once the tasks before it have ended, resets the component.
    func hop(_ remaining: Int) async -> Thing {
        await transient { c in
            await Task.yield()
            c.hopAgents.withLock { $0.append(WeakObject(TaskAgents.current)) }
            Task {
                if remaining > 1 {
                    _ = await c.outliving.hop(remaining - 1)
                } else {
                    // Once the first hop's task has ended and released its agent: the trap must
                    // not depend on it. (The last hop's agent stays, in the task-local values
                    // that this task inherited from its step.)
                    while c.hopAgents.withLock({ $0[0].object != nil }) {
                        try? await Task.sleep(nanoseconds: 1_000_000)
                    }
                    c.reset()
                    c.resetDone.open()
                }
            }
            return Thing()
        }
    }

    /// Records its task's agent in `agents`, then starts a task that calls it again, `remaining`
    /// more times; the last opens `resetDone` and waits for `latch`.
    func relay(_ remaining: Int, agents: LockedBox<[WeakObject]>) async -> Thing {
        await transient { c in
            await Task.yield()
            agents.withLock { $0.append(WeakObject(TaskAgents.current)) }
            let latch = c.latch!
            Task {
                if remaining > 0 {
                    _ = await c.outliving.relay(remaining - 1, agents: agents)
                } else {
                    c.resetDone.open()
                    await latch.wait()
                }
            }
            return Thing()
        }
    }

    /// Starts `waits(body)` in an unstructured task and returns once it runs.
    func startsWaitingTask(_ body: @escaping @Sendable (OutlivingComponent) async -> Void) async -> Task<
        Void, Never
    > {
        await transient { c in
            let task = Task { _ = await c.outliving.waits(body) }
            await c.entered.wait()
            return task
        }
    }

    /// Returns an unstructured task that calls `syncScoped()` once `latch` opens.
    func startsLateCaller() async -> Task<Void, Never> {
        await transient { c in
            await Task.yield()
            let latch = c.latch!
            return Task {
                await latch.wait()
                _ = c.outliving.syncScoped()
            }
        }
    }

    /// Runs `body` once `latch` opens, after the resolution that started its task has ended.
    func waits(_ body: @escaping @Sendable (OutlivingComponent) async -> Void) async -> Thing {
        await transient { c in
            c.entered.open()
            await c.latch!.wait()
            await body(c)
            return Thing()
        }
    }

    /// Returns a task that resets the component, outside any provider, once `latch` opens.
    func startsResetter() async -> Task<Void, Never> {
        await transient { c in
            await Task.yield()
            let latch = c.latch!
            return Task {
                await latch.wait()
                c.reset()
                c.resetDone.open()
            }
        }
    }

    /// Opens `latch`, then waits at `gate`.
    func slow() async -> Thing {
        await transient { c in
            c.latch?.open()
            await c.gate?.wait()
            return Thing()
        }
    }
}

final class OuterComponent: Component, @unchecked Sendable {
    let inner = OutlivingComponent()
    var outer: OuterModule { module() }
}

final class OuterModule: Module<OuterComponent> {
    /// Starts the inner component's resetter, whose provider returns at once, then waits in
    /// another provider of the inner component while the resetter resets.
    func startsResetterThenWaits() async {
        await transient { c in
            let resetter = await c.inner.outliving.startsResetter()
            _ = await c.inner.outliving.slow()
            await resetter.value
        }
    }
}

final class ResetterComponent: Component, @unchecked Sendable {
    nonisolated(unsafe) weak var target: OutlivingComponent?
    var resetter: ResetterModule { module() }
}

final class ResetterModule: Module<ResetterComponent> {
    /// Resets the target component from a provider of this one.
    func resetsTarget() async -> Thing {
        await transient { c in
            await Task.yield()
            c.target!.reset()
            return Thing()
        }
    }
}
