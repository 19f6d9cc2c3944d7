import Dirk
import Dispatch

/// `async_single`: awaiting a singleton whose async factory ran already, from a task on no actor;
/// `async_transient`: awaiting a new instance from an async factory that awaits that singleton,
/// an outermost call, so an async resolution of its own.
///
/// Swinject has no async resolution, so the scenarios compare Dirk with hand-written code only.
/// Each timed batch runs in one detached task, which the harness's thread waits for: the task's
/// creation is paid once per batch, not per operation.
enum AsyncSingleScenario {
    final class Store: Sendable {}

    final class Session: Sendable {
        let store: Store

        init(store: Store) {
            self.store = store
        }
    }

    /// The hand-written baseline: a lazy var read by an async accessor that is never inlined.
    ///
    /// `@unchecked Sendable`: `storedStore` is written once, by the first call of `store()`, before
    /// any timed batch starts, and only read after that.
    final class HandwrittenGraph: @unchecked Sendable {
        private lazy var storedStore = Store()

        @inline(never)
        func store() async -> Store {
            storedStore
        }

        @inline(never)
        func session() async -> Session {
            Session(store: await store())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var data: DataModule { module() }
    }

    final class DataModule: Module<AppComponent> {
        func store() async -> Store {
            await single {
                await Task.yield()  // an async factory: one that suspends
                return Store()
            }
        }

        func session() async -> Session {
            await transient { c in Session(store: await c.data.store()) }
        }
    }

    static var scenario: Scenario {
        Scenario(
            name: "async_single",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = inTask { await graph.store() }
                return .serial { count in
                    inTask {
                        var sink: UInt = 0
                        for _ in 0..<count { sink &+= bits(of: await graph.store()) }
                        return sink
                    }
                }
            },
            dirk: {
                let app = AppComponent()
                _ = inTask { await app.data.store() }
                return .serial { count in
                    inTask {
                        var sink: UInt = 0
                        for _ in 0..<count { sink &+= bits(of: await app.data.store()) }
                        return sink
                    }
                }
            })
    }

    static var transientScenario: Scenario {
        Scenario(
            name: "async_transient",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = inTask { await graph.store() }
                return .serial { count in
                    inTask {
                        var sink: UInt = 0
                        for _ in 0..<count { sink &+= bits(of: await graph.session()) }
                        return sink
                    }
                }
            },
            dirk: {
                let app = AppComponent()
                _ = inTask { await app.data.store() }
                return .serial { count in
                    inTask {
                        var sink: UInt = 0
                        for _ in 0..<count { sink &+= bits(of: await app.data.session()) }
                        return sink
                    }
                }
            })
    }

    /// Runs `body` in a detached task and waits for it on the calling thread.
    private static func inTask(_ body: @escaping @Sendable () async -> UInt) -> UInt {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        Task.detached {
            result.value = await body()
            done.signal()
        }
        done.wait()
        return result.value
    }

    private static func inTask(_ body: @escaping @Sendable () async -> AnyObject) -> UInt {
        inTask { bits(of: await body()) }
    }

    /// The result of a task, written by the task before it signals and read after the wait.
    private final class ResultBox: @unchecked Sendable {
        var value: UInt = 0
    }
}
