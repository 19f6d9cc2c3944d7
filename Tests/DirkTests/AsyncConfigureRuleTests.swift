import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// Issue 83, item 3: one rule for a `configure:` that cannot throw, reached inside another
/// provider's factory, in a task as on a thread: it waits until the factories under way in that
/// resolution return.
@Suite("A configure: reached inside an async factory waits for it, as on a thread")
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
        "in a task, a configure: reached inside an async factory runs after the factory returns",
        arguments: Outer.allCases)
    func inATask(_ outer: Outer) async {
        let component = LogComponent()
        await withAsyncWatchdog {
            switch outer {
            case .transient: _ = await component.rule.a()
            case .single: _ = await component.rule.asyncSingle()
            }
        }
        #expect(component.log.withLock { $0 } == ["s.f", "end", "s.c"])
    }

    @Test("in a task, a configure: reached inside nested async factories runs after the outermost returns")
    func insideNestedAsyncFactories() async {
        let component = LogComponent()
        await withAsyncWatchdog { _ = await component.rule.outer() }
        #expect(component.log.withLock { $0 } == ["s.f", "end", "outer end", "s.c"])
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
