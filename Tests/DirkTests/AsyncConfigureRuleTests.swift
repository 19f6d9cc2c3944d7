import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// One rule for a synchronous provider's `configure:` that cannot throw, reached inside another
/// provider's factory: it waits until the synchronous factories under way on its thread return, in
/// a task as on a thread. It never waits for an async factory: the build would stay held while that
/// factory awaits, and a thread that asks for it meanwhile would block until then.
@Suite("A configure: waits for the synchronous factories under way on its thread, in a task as on a thread")
struct AsyncConfigureRuleTests {
    @Test("on a thread, a configure: reached inside a transient's factory runs after the factory returns")
    func onAThread() {
        let component = LogComponent()
        _ = component.rule.t()
        #expect(component.log.withLock { $0 } == ["s.f", "end", "s.c"])
    }

    @Test("on a thread, a configure: reached inside nested factories runs after the outermost returns")
    func insideNestedFactoriesOnAThread() {
        let component = LogComponent()
        _ = component.rule.outerOnAThread()
        #expect(component.log.withLock { $0 } == ["s.f", "end", "outer end", "s.c"])
    }

    /// The async provider whose factory asks for `s()`.
    enum Outer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case transient, single

        var testDescription: String { rawValue }
    }

    @Test(
        "in a task, a configure: reached inside an async factory runs before the factory goes on",
        arguments: Outer.allCases)
    func inATask(_ outer: Outer) async {
        let component = LogComponent()
        await withAsyncWatchdog {
            switch outer {
            case .transient: _ = await component.rule.a()
            case .single: _ = await component.rule.asyncSingle()
            }
        }
        #expect(component.log.withLock { $0 } == ["s.f", "s.c", "end"])
    }

    @Test(
        "in a task, a configure: reached inside a transient's factory there runs after that factory returns")
    func insideASynchronousFactoryInATask() async {
        let component = LogComponent()
        await withAsyncWatchdog { _ = await component.rule.asyncOuterOfT() }
        #expect(component.log.withLock { $0 } == ["s.f", "end", "s.c", "outer end"])
    }

    @Test("in a task, a configure: reached inside nested async factories runs before the innermost goes on")
    func insideNestedAsyncFactories() async {
        let component = LogComponent()
        await withAsyncWatchdog { _ = await component.rule.outer() }
        #expect(component.log.withLock { $0 } == ["s.f", "s.c", "end", "outer end"])
    }

    @Test("a task that asks for the instance while the async factory that built it awaits that task gets it")
    func askedWhileTheFactoryAwaits() async {
        let component = LogComponent()
        let configured = await withAsyncWatchdog { await component.rule.awaitsAnotherTaskForS() }
        #expect(configured == true, "the other task got the instance configured")
    }

    @Test("the outermost async call returns an instance whose configure: has run")
    func configuredWhenTheOutermostCallReturns() async {
        let component = LogComponent()
        let ring = await withAsyncWatchdog { await component.rule.returnsS() }
        #expect(ring?.configured == true)
    }

    @Test(
        "a ring of singles through configure:, reached inside async factories from both ends at once, resolves, 100 rounds"
    )
    func ringFromBothEndsInAsyncFactories() async {
        let (leftExecutor, rightExecutor) = (OneThreadExecutor(), OneThreadExecutor())
        defer {
            leftExecutor.stop()
            rightExecutor.stop()
        }
        let complete = await withAsyncWatchdog { () async -> Int in
            var complete = 0
            for _ in 0..<100 {
                let component = LogComponent()
                // Each end's factory returns only once the other's has begun, so both builds are
                // under way when the first configure: asks for the other end. Each task runs on a
                // thread of its own, which the factory's wait holds.
                let left = Task(executorPreference: leftExecutor) { await component.rule.fromLeft() }
                let right = Task(executorPreference: rightExecutor) { await component.rule.fromRight() }
                let (l, r) = (await left.value, await right.value)
                if l.peer === r && r.peer === l && component.rule.left() === l
                    && component.rule.right() === r && component.builds.count == 2
                {
                    complete += 1
                }
            }
            return complete
        }
        #expect(complete == 100, "rounds whose ring was complete, each end built once")
    }
}

// MARK: Fixtures

/// An instance whose `configure:` marks it, and, in a ring, sets its peer.
///
/// Written only by its provider's `configure:`, before Dirk hands the instance to anyone but its
/// builder; read after the outermost call returns.
final class Ring: @unchecked Sendable {
    var configured = false
    /// The other end of a ring; weak, so that a ring that no component keeps goes.
    weak var peer: Ring?
}

final class LogComponent: Component, @unchecked Sendable {
    let log = LockedBox<[String]>([])
    let builds = Counter()
    /// Signalled when each end's factory of the ring begins.
    let (leftStarted, rightStarted) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    var rule: LogModule { module() }

    func note(_ line: String) { log.withLock { $0.append(line) } }
}

final class LogModule: Module<LogComponent> {
    func s() -> Ring {
        single { c in
            c.note("s.f")
            return Ring()
        } configure: { ring, c in
            c.note("s.c")
            ring.configured = true
        }
    }

    func t() -> Int {
        transient { c in
            _ = c.rule.s()
            c.note("end")
            return 0
        }
    }

    func a() async -> Int {
        await transient { c in
            await Task.yield()
            _ = c.rule.s()
            c.note("end")
            return 0
        }
    }

    func asyncSingle() async -> Counter {
        await single { c in
            await Task.yield()
            _ = c.rule.s()
            c.note("end")
            return Counter()
        }
    }

    /// A transient whose factory asks for `t()`.
    func outerOnAThread() -> Int {
        transient { c in
            _ = c.rule.t()
            c.note("outer end")
            return 0
        }
    }

    /// An async transient whose factory asks for `t()`, whose synchronous factory asks for `s()`.
    func asyncOuterOfT() async -> Int {
        await transient { c in
            await Task.yield()
            _ = c.rule.t()
            c.note("outer end")
            return 0
        }
    }

    /// An async transient whose factory asks for `s()`, then awaits a task that asks for `s()` on
    /// another thread: it gets the instance configured, since its `configure:` waited for no async
    /// factory.
    func awaitsAnotherTaskForS() async -> Bool {
        await transient { c in
            _ = c.rule.s()
            return await Task.detached { c.rule.s().configured }.value
        }
    }

    /// An async transient whose factory awaits `a()`.
    func outer() async -> Int {
        await transient { c in
            _ = await c.rule.a()
            c.note("outer end")
            return 0
        }
    }

    func returnsS() async -> Ring {
        await transient { c in
            await Task.yield()
            return c.rule.s()
        }
    }

    // MARK: A ring

    func left() -> Ring {
        single { c in
            c.builds.increment()
            c.leftStarted.signal()
            c.rightStarted.wait()
            return Ring()
        } configure: { ring, c in
            ring.peer = c.rule.right()
        }
    }

    func right() -> Ring {
        single { c in
            c.builds.increment()
            c.rightStarted.signal()
            c.leftStarted.wait()
            return Ring()
        } configure: { ring, c in
            ring.peer = c.rule.left()
        }
    }

    func fromLeft() async -> Ring {
        await transient { c in
            await Task.yield()
            return c.rule.left()
        }
    }

    func fromRight() async -> Ring {
        await transient { c in
            await Task.yield()
            return c.rule.right()
        }
    }
}
