import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("scoped follows the resolution, not the thread")
struct AsyncScopeTests {
    @Test("inside an async factory, a scoped provider asked for before and after an await gives one instance")
    func scopedAcrossAwait() async {
        let component = RequestScopeComponent()
        let pair = await component.requests.pairAcrossAwait()
        #expect(pair.before === pair.after)
        let next = await component.requests.pairAcrossAwait()
        #expect(next.before !== pair.before, "the next outermost call is a new resolution")
    }

    @Test(
        "a scoped instance found at once, outside any step, leaves nothing for the thread's next resolution")
    func scopedFoundAtOnceOnOneThread() async {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let component = RequestScopeComponent()
        let (first, second) = await withTaskExecutorPreference(executor) {
            // The second call of each pair finds its instance without entering a step, on the
            // thread that the next pair runs on too.
            (await component.requests.pairAcrossAwait(), await component.requests.pairAcrossAwait())
        }
        #expect(first.before === first.after)
        #expect(second.before === second.after)
        #expect(second.before !== first.before)
    }

    @Test("an async scoped provider gives one instance per async resolution, to its child tasks too")
    func asyncScoped() async {
        let component = RequestScopeComponent()
        let contexts = await component.requests.contextsOfChildTasks()
        #expect(contexts.count == 4)
        #expect(Set(contexts.map(ObjectIdentifier.init)).count == 1)
        let other = await component.requests.contextsOfChildTasks()
        #expect(other[0] !== contexts[0])
        #expect(component.requests.built.count == 2)
    }

    @Test(
        "model seed 343: a reset from elsewhere during an async resolution keeps the resolution's scoped instances",
        arguments: [false, true])
    func resetDuringAnAsyncResolution(asyncScoped: Bool) async {
        let component = RequestScopeComponent()
        let (reached, resumed) = (Latch(), Latch())
        let resolution = Task {
            await component.requests.pairAcrossReset(asyncScoped, reached: reached, resumed: resumed)
        }
        await reached.wait()
        component.reset()  // from elsewhere: not a step of the resolution, which goes on
        resumed.open()
        let pair = await resolution.value
        #expect(
            pair.before === pair.after, "one resolution, one scoped instance, whatever a reset does meanwhile"
        )
        let next = await component.requests.pairAcrossReset(
            asyncScoped, reached: Latch(), resumed: Latch.opened)
        #expect(next.before !== pair.before, "the next resolution gets its own")
    }

    @Test("a Task that outlives its resolution makes a resolution of its own")
    func unstructuredTaskAfterTheResolution() async {
        let component = RequestScopeComponent()
        let contexts = await withAsyncWatchdog {
            let (context, later) = await component.requests.contextAndLaterTask()
            return (context, await later.value)
        }
        #expect(contexts.map { $0.0 !== $0.1 } == true)
    }

    @Test("a Task's call under way when its async resolution ends shares one scope of its own after the end")
    func callAcrossTheEndOpensItsOwnScope() async {
        let component = RequestScopeComponent()
        let contexts = await withAsyncWatchdog { await component.requests.contextsAcrossTheEnd() }
        #expect(contexts.map { $0.after === $0.later } == true, "one scope after the end")
        #expect(
            contexts.map { $0.before !== $0.after } == true, "the ended resolution's instance is not kept")
    }

    @Test("an outermost scoped call in a Task that its async resolution ends under gets one instance")
    func outermostScopedCallAcrossTheEnd() async {
        // `left()` is the Task's outermost call: it finds its cell in the async resolution's scope
        // outside any step. The scope ends while `left()`'s configure runs; `right()`'s configure
        // then asks for `left()` again, and must get the instance being configured.
        let component = EdgeComponent()
        defer { component.executor.stop() }
        let pair = await withAsyncWatchdog { () async -> (left: Partnered, right: Partnered) in
            let task = await component.edge.starts()
            component.ended.signal()
            return await task.value
        }
        #expect(pair.map { $0.right.back === $0.left } == true, "the right one refers to another left one")
        #expect(component.edge.leftBuilds.count == 1)
    }

    @Test("a synchronous resolution in a Task that its async resolution ends under gets one scoped instance")
    func synchronousResolutionAcrossTheEnd() async {
        // The task's synchronous `pair()` gets its first instance from the async resolution's
        // scope, which then ends, and asks again: one resolution, one instance; and the instance
        // goes when that resolution ends, as the scope has.
        let component = SplitScopeComponent()
        defer { component.executor.stop() }
        let outcome = await withAsyncWatchdog {
            () async -> (same: Bool, laterAlive: Bool, rootOnlyAlive: Bool)? in
            let task = await component.split.root()
            // The async resolution has ended; the task's synchronous call, which used only
            // `scopedThing()`, still runs.
            let rootOnlyAlive = component.rootOnly.withLock { $0.object != nil }
            component.proceed.signal()
            await task.value
            return component.outcome.withLock { $0.map { ($0.same, $0.laterAlive, rootOnlyAlive) } }
        }
        #expect(outcome??.same == true, "two instances in one synchronous resolution")
        #expect(outcome??.laterAlive == false, "the instance outlived its resolution")
        #expect(
            outcome??.rootOnlyAlive == false,
            "an instance that only the ended resolution used went only when the task's call returned")
    }
}

// MARK: Fixtures

/// One of two scoped instances that refer to each other: the left one to the right one, strongly,
/// and back.
final class Partnered: @unchecked Sendable {
    var next: Partnered?
    weak var back: Partnered?
}

final class EdgeComponent: Component, @unchecked Sendable {
    let inConfigure = Latch()
    let ended = DispatchSemaphore(value: 0)
    /// Runs the task that blocks, so that it holds no thread of the shared pool.
    let executor = OneThreadExecutor()
    var edge: EdgeModule { module() }
}

final class EdgeModule: Module<EdgeComponent> {
    let leftBuilds = Counter()

    /// Its configure waits until the test has ended the async resolution, then asks for `right()`.
    func left() -> Partnered {
        scoped(
            { c in
                c.edge.leftBuilds.increment()
                return Partnered()
            },
            configure: { left, c in
                c.inConfigure.open()
                c.ended.wait()
                left.next = c.edge.right()
            })
    }

    func right() -> Partnered {
        scoped({ Partnered() }, configure: { right, c in right.back = c.edge.left() })
    }

    /// Starts a task whose outermost call is `left()`; returns once its configure runs.
    func starts() async -> Task<(left: Partnered, right: Partnered), Never> {
        await transient { c in
            let task = Task(executorPreference: c.executor) { () -> (left: Partnered, right: Partnered) in
                let left = c.edge.left()
                return (left, left.next!)
            }
            await c.inConfigure.wait()
            return task
        }
    }
}

final class SplitScopeComponent: Component, @unchecked Sendable {
    let firstGot = Latch()
    let proceed = DispatchSemaphore(value: 0)
    let outcome = LockedBox<(same: Bool, laterAlive: Bool)?>(nil)
    /// Runs the task that blocks, so that it holds no thread of the shared pool.
    let executor = OneThreadExecutor()
    /// The instance that only the async resolution asks for.
    let rootOnly = LockedBox(WeakThing())
    var split: SplitScopeModule { module() }
}

final class WeakThing: @unchecked Sendable {
    weak var object: Thing?
}

final class SplitScopeModule: Module<SplitScopeComponent> {
    func scopedThing() -> Thing { scoped { Thing() } }
    func rootOnlyThing() -> Thing { scoped { Thing() } }

    /// Asks for `scopedThing()` twice in one synchronous resolution, waiting in between until the
    /// test lets it go on.
    func pair() -> (Thing, Thing) {
        transient { c in
            let first = c.split.scopedThing()
            c.firstGot.open()
            c.proceed.wait()
            return (first, c.split.scopedThing())
        }
    }

    /// Starts a task that outlives this resolution and runs `pair()`; returns once the pair has its
    /// first instance.
    func root() async -> Task<Void, Never> {
        await transient { c in
            let task = Task(executorPreference: c.executor) {
                weak var later: Thing?
                var same = false
                do {
                    let (first, second) = c.split.pair()
                    same = first === second
                    later = second
                }
                c.outcome.withLock { $0 = (same, later != nil) }
            }
            c.rootOnly.withLock { $0.object = c.split.rootOnlyThing() }
            await c.firstGot.wait()
            return task
        }
    }
}

final class RequestContext: @unchecked Sendable {}

final class RequestScopeComponent: Component, @unchecked Sendable {
    var requests: RequestModule { module() }
}

final class RequestModule: Module<RequestScopeComponent> {
    let built = Counter()

    func context() -> RequestContext { scoped { RequestContext() } }

    func asyncContext() async -> RequestContext {
        await scoped { c in
            c.requests.built.increment()
            await Task.yield()
            return RequestContext()
        }
    }

    func pairAcrossAwait() async -> (before: RequestContext, after: RequestContext) {
        await transient { c in
            let before = c.requests.context()
            for _ in 0..<10 { await Task.yield() }
            let after = c.requests.context()
            return (before, after)
        }
    }

    /// Asks for the synchronous or async `scoped` instance before and after `reached` is opened and
    /// `resumed` has opened, in one async resolution.
    func pairAcrossReset(_ asyncScoped: Bool, reached: Latch, resumed: Latch) async -> (
        before: RequestContext, after: RequestContext
    ) {
        await transient { c in
            let before = asyncScoped ? await c.requests.asyncContext() : c.requests.context()
            reached.open()
            await resumed.wait()
            let after = asyncScoped ? await c.requests.asyncContext() : c.requests.context()
            return (before, after)
        }
    }

    func contextsOfChildTasks() async -> [RequestContext] {
        await transient { c in
            await withTaskGroup(of: RequestContext.self) { group in
                for _ in 0..<4 { group.addTask { await c.requests.asyncContext() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
    }

    /// Starts a task whose call asks for `asyncContext()` before this resolution ends and twice
    /// after, and returns what it got.
    func contextsAcrossTheEnd() async -> (
        before: RequestContext, after: RequestContext, later: RequestContext
    ) {
        let (gate, started) = (Latch(), Latch())
        let task = await transient { c in
            let task = Task {
                await c.requests.spanning(gate: gate, started: started)
            }
            await started.wait()
            return task
        }
        gate.open()
        return await task.value
    }

    /// Asks for `asyncContext()`, then, once `gate` opens, twice more, in one call.
    func spanning(gate: Latch, started: Latch) async -> (
        before: RequestContext, after: RequestContext, later: RequestContext
    ) {
        await transient { c in
            let before = await c.requests.asyncContext()
            started.open()
            await gate.wait()
            return (before, await c.requests.asyncContext(), await c.requests.asyncContext())
        }
    }

    func contextAndLaterTask() async -> (RequestContext, Task<RequestContext, Never>) {
        let gate = Latch()
        let result = await transient { c in
            let task = Task {
                await gate.wait()
                return await c.requests.asyncContext()
            }
            return (await c.requests.asyncContext(), task)
        }
        gate.open()
        return result
    }
}
