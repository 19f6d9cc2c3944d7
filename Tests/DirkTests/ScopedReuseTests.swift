import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// Review R1 (issue 83): a synchronous `scoped` call inside a `configure:`, in a `Task { }` that an
/// async factory starts and that outlives the async resolution whose scope it shares. The scope ends
/// while the task's build of the scoped instance is held; that instance must go with the scope, and
/// a later resolution must never get it.
@Suite("A scoped instance made in a Task that outlives its resolution stays that resolution's")
struct ScopedReuseTests {
    /// When the task that makes the scoped instance ends, against the async resolution that started it.
    enum Ending: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The resolution returns while the task's `configure:` runs: the shape of R1.
        case afterTheResolution
        /// The control: the resolution awaits the task before it returns.
        case beforeTheResolution

        var testDescription: String { rawValue }
    }

    @Test(
        "each resolution gets a scoped instance of its own, never one made in an earlier resolution's Task, 200 rounds",
        arguments: Ending.allCases)
    func eachResolutionGetsItsOwn(_ ending: Ending) async {
        let rounds = await withAsyncWatchdog { await ReuseComponent().rounds(200, ending) }
        let (inTask, inProbe) = (rounds?.staleInTask ?? [], rounds?.staleInProbe ?? [])
        #expect(
            inTask.count == 0,
            "rounds whose Task got a scoped instance made before its resolution began: \(inTask.prefix(5))…")
        #expect(
            inProbe.count == 0,
            "rounds whose next resolution got a scoped instance made before it began: \(inProbe.prefix(5))…")
    }

    @Test(
        "once a round's resolutions have ended, none of its scoped instances is left in the component",
        arguments: Ending.allCases)
    func noScopedInstanceIsKept(_ ending: Ending) async {
        let component = ReuseComponent()
        let rounds = await withAsyncWatchdog { await component.rounds(200, ending) }
        let kept = rounds?.keptAfter ?? []
        #expect(
            component.scopedInstances.withLock { $0.count } == 400,
            "each round makes two scoped instances: its Task's and its probe's")
        #expect(
            kept.count == 0,
            "rounds after which a scoped instance that nobody held was alive: \(kept.prefix(5))…")
    }
}

// MARK: Fixtures

/// What one round's task and test use to take turns.
final class ReuseRound: Sendable {
    let number: Int
    /// Opened by the task's `configure:` once it has its scoped instance.
    let reached = Latch()
    /// Signalled when the task's `configure:` may return.
    let release = DispatchSemaphore(value: 0)
    /// How many scoped instances were made before the round began.
    let madeBefore: Int
    /// The number of the scoped instance that the task's `configure:` got.
    let gotInTask = LockedBox<Int?>(nil)

    init(_ number: Int, madeBefore: Int) {
        self.number = number
        self.madeBefore = madeBefore
    }
}

/// What went wrong in which rounds of a run.
struct ReuseRounds: Sendable {
    /// The rounds whose Task got a scoped instance made before its resolution began.
    var staleInTask: [Int] = []
    /// The rounds whose probe got a scoped instance made before it began.
    var staleInProbe: [Int] = []
    /// The rounds after which a scoped instance was alive, though nobody held it.
    var keptAfter: [Int] = []
}

final class ReuseComponent: Component, @unchecked Sendable {
    let counter = Counter()
    /// Every scoped instance made, held weakly.
    let scopedInstances = LockedBox<[WeakObject]>([])
    /// Runs the tasks that block, so that they hold no thread of the shared pool.
    let executor = OneThreadExecutor()
    var reuse: ReuseModule { module() }

    /// Runs `count` rounds. In each, an async resolution starts a Task whose `configure:` gets a
    /// scoped instance, and returns before or after the Task ends, as `ending` says; then a new
    /// async resolution, the probe, gets the scoped instance.
    func rounds(_ count: Int, _ ending: ScopedReuseTests.Ending) async -> ReuseRounds {
        defer { executor.stop() }
        var outcome = ReuseRounds()
        for number in 1...count {
            let round = ReuseRound(number, madeBefore: counter.count)
            let task = await reuse.owner(round, taskEndsFirst: ending == .beforeTheResolution)
            // The owner's resolution has returned; the Task's configure: waits until now.
            if ending == .afterTheResolution { round.release.signal() }
            await task.value
            if round.gotInTask.withLock({ $0 ?? 0 }) <= round.madeBefore {
                outcome.staleInTask.append(number)
            }
            let madeBefore = counter.count
            if await reuse.probe().number <= madeBefore { outcome.staleInProbe.append(number) }
            if scopedInstances.withLock({ $0.contains { $0.object != nil } }) {
                outcome.keptAfter.append(number)
            }
        }
        return outcome
    }
}

final class ReuseModule: Module<ReuseComponent> {
    func scopedThing() -> Thing {
        scoped { c in
            let thing = Thing(c.counter)
            c.scopedInstances.withLock { $0.append(WeakObject(thing)) }
            return thing
        }
    }

    /// One instance per round, whose `configure:` asks for the scoped instance, opens the round's
    /// latch, and returns when the round's semaphore is signalled.
    func holder(_ round: ReuseRound) -> Thing {
        single(key: round.number) { _ in
            Thing()
        } configure: { _, c in
            let scoped = c.reuse.scopedThing()
            round.gotInTask.withLock { $0 = scoped.number }
            round.reached.open()
            round.release.wait()
        }
    }

    /// Starts a task that asks for the round's holder, and returns once the holder's `configure:`
    /// has its scoped instance; first awaits the task if `taskEndsFirst`.
    func owner(_ round: ReuseRound, taskEndsFirst: Bool) async -> Task<Void, Never> {
        await transient { c in
            let task = Task(executorPreference: c.executor) { _ = c.reuse.holder(round) }
            await round.reached.wait()
            if taskEndsFirst {
                round.release.signal()
                await task.value
            }
            return task
        }
    }

    /// A new async resolution's scoped instance.
    func probe() async -> Thing {
        await transient { c in
            await Task.yield()
            return c.reuse.scopedThing()
        }
    }
}
