import Dirk
import DirkTestSupport
import Testing

@Suite("Shutdown")
struct ShutdownTests {
    @Test("shutdown closes each instance once, newest build first: repositories before their pool")
    func closesInReverseBuildOrder() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        _ = await app.storage.users()  // builds the pool first, then the users repository
        _ = app.storage.settings()
        _ = app.storage.session(id: "a")
        _ = app.storage.cache()  // no close action
        try await app.shutdown()
        #expect(closed.names == ["session a", "settings", "users", "pool"])
        try await app.shutdown()
        #expect(closed.names == ["session a", "settings", "users", "pool"], "a second call closes nothing")
    }

    @Test("concurrent shutdown calls close each instance exactly once and all return")
    func concurrentShutdown() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        _ = await app.storage.users()
        let finished = await withAsyncWatchdog {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { (try? await app.shutdown()) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        #expect(finished == 8)
        #expect(closed.names == ["users", "pool"])
    }

    @Test("errors of close actions are all reported, after every close action ran")
    func collectsErrors() async {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        _ = app.storage.settings()
        _ = app.storage.failing(1)
        _ = app.storage.failing(2)
        do {
            try await app.shutdown()
            Issue.record("shutdown should throw")
        } catch {
            #expect(
                error.failures.map(\.provider) == [
                    "ShutdownStorageModule.failing(_:)", "ShutdownStorageModule.failing(_:)",
                ])
            #expect(
                error.failures.map { "\($0.error)" } == [
                    "CloseFailure(number: 2)", "CloseFailure(number: 1)",
                ])
            #expect(
                error.description.hasPrefix(
                    "Dirk: `ServerComponent.shutdown()` ran every close action, and 2 threw"))
        }
        #expect(closed.names == ["failing 2", "failing 1", "settings"])
        await #expect(throws: ShutdownError.self, "a later call gets the same outcome") {
            try await app.shutdown()
        }
    }

    @Test("shutdown waits for a build under way, whose own provider calls still run, and closes it")
    func waitsForBuildUnderWay() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        let result = await withAsyncWatchdog {
            async let database = app.storage.slowDatabase()
            await app.started.wait()
            async let shutdown: Void = app.shutdown()
            // The build stays under way until the gate opens: shutdown cannot close it before.
            try? await Task.sleep(nanoseconds: 20_000_000)
            #expect(closed.names.isEmpty)
            app.gate.open()
            let built = await database
            try? await shutdown
            return built.name == "slow database"
        }
        #expect(result == true)
        #expect(closed.names == ["slow database", "pool"], "built during the build, after shutdown began")
    }

    @Test("reset drops instances without closing them; shutdown closes them later")
    func resetKeepsCloseActions() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        let first = app.storage.settings()
        app.reset()
        let second = app.storage.settings()
        #expect(first !== second)
        #expect(closed.names.isEmpty)
        try await app.shutdown()
        #expect(closed.names == ["settings", "settings"])
    }

    @Test("a fresh copy is its caller's: shutdown does not close it, and the component does not keep it")
    func freshCopiesAreNotClosed() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        let cached = app.storage.settings()
        weak var released: Resource?
        do {
            let copy = app.storage.fresh { $0.settings() }
            #expect(copy !== cached)
            released = copy
        }
        #expect(released == nil, "the component kept the fresh copy for its close")
        try await app.shutdown()
        #expect(closed.names == ["settings"], "only the cached instance is closed")
    }

    @Test("an instance whose configure: threw was built, so shutdown closes it too")
    func closesWhatConfigureDropped() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        #expect(throws: CloseFailure.self) { try app.storage.configured() }
        let kept = try app.storage.configured()
        #expect(try app.storage.configured() === kept)
        try await app.shutdown()
        #expect(closed.names == ["configured", "configured"])
    }

    @Test("a parent's shutdown does not close its children's instances, nor a child's its parent's")
    func childrenShutDownOnTheirOwn() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        let request = ShutdownChildComponent().parent(app)
        _ = request.work.handler()
        _ = app.storage.settings()
        try await request.shutdown()
        #expect(closed.names == ["handler"])
        #expect(app.storage.settings() === app.storage.settings(), "the parent still serves")
        try await app.shutdown()
        #expect(closed.names == ["handler", "settings"])
    }

    @Test("a shut-down component is released: shutdown keeps nothing alive")
    func releasedAfterShutdown() async throws {
        weak var released: ServerComponent?
        do {
            let app = ServerComponent(closed: Closed())
            released = app
            _ = await app.storage.users()
            try await app.shutdown()
        }
        #expect(released == nil)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a provider called after shutdown stops with a message, cached or not")
    func callAfterShutdownTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = ServerComponent(closed: Closed())
            _ = app.storage.settings()
            try? await app.shutdown()
            _ = app.storage.settings()
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `ShutdownStorageModule.settings()` was called after its component `ServerComponent` was shut down."
            ))
        let transient = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = ServerComponent(closed: Closed())
            try? await app.shutdown()
            _ = app.work.fresh()
        }
        #expect(standardError(of: transient).contains("Dirk: `ShutdownWorkModule.fresh()` was called after"))
    }

    @Test("shutdown called inside the component's own provider stops with a message")
    func shutdownInsideProviderTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = ServerComponent(closed: Closed())
            _ = await app.work.shutsDown()
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `ServerComponent.shutdown()` was called while `ShutdownWorkModule.shutsDown()` of that component was being resolved"
            ))
    }

    @Test("a component released without shutdown, with instances to close, says so once in debug builds")
    func releasedOpenWarns() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            do {
                let app = ServerComponent(closed: Closed())
                _ = app.storage.settings()
                _ = app.storage.session(id: "a")
            }
            do {
                let quiet = ServerComponent(closed: Closed())
                _ = quiet.storage.cache()
            }
        }
        let warnings = standardError(of: result).components(separatedBy: "was released without `shutdown()`")
        #if DEBUG
        #expect(warnings.count == 2, "one warning, for the component with instances to close")
        #expect(
            standardError(of: result).contains(
                "Dirk: warning: `ServerComponent` was released without `shutdown()` while it held instances with close actions, which never ran: `ShutdownStorageModule.settings()`, `ShutdownStorageModule.session(id:)`."
            ))
        #else
        #expect(warnings.count == 1, "release builds say nothing")
        #endif
    }
    #endif
}

/// The names of the instances closed, in order.
final class Closed: Sendable {
    private let list = LockedBox<[String]>([])
    var names: [String] { list.withLock { $0 } }
    func add(_ name: String) { list.withLock { $0.append(name) } }
}

struct CloseFailure: Error {
    let number: Int
}

final class Resource: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

final class ServerComponent: Component, @unchecked Sendable {
    let closed: Closed
    let started = Latch()
    let gate = Latch()
    let configureAttempts = Counter()
    init(closed: Closed) {
        self.closed = closed
        super.init()
    }
    var storage: ShutdownStorageModule { module() }
    var work: ShutdownWorkModule { module() }
}

final class ShutdownStorageModule: Module<ServerComponent> {
    func pool() -> Resource {
        single {
            Resource("pool")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
    func users() async -> Resource {
        await single { c in
            await Task.yield()
            _ = c.storage.pool()
            return Resource("users")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
    func slowDatabase() async -> Resource {
        await single { c in
            c.started.open()
            await c.gate.wait()
            _ = c.storage.pool()  // a provider call after shutdown began, inside the build
            return Resource("slow database")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
    func settings() -> Resource {
        single {
            Resource("settings")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
    func session(id: String) -> Resource {
        single(key: id) {
            Resource("session \(id)")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }
    func failing(_ number: Int) -> Resource {
        single(key: number) {
            Resource("failing \(number)")
        } close: { [closed = component.closed] in
            closed.add($0.name)
            throw CloseFailure(number: number)
        }
    }
    func cache() -> Resource { single { Resource("cache") } }
    /// Its first `configure:` throws; the next succeeds.
    func configured() throws(CloseFailure) -> Resource {
        try single(
            { () throws(CloseFailure) in Resource("configured") },
            configure: { (_, c) throws(CloseFailure) in
                if c.configureAttempts.increment() == 1 { throw CloseFailure(number: 0) }
            },
            close: { [closed = component.closed] in closed.add($0.name) })
    }
}

final class ShutdownWorkModule: Module<ServerComponent> {
    func fresh() -> Resource { transient { Resource("fresh") } }
    func shutsDown() async -> Resource {
        await single { c in
            try? await c.shutdown()
            return Resource("never")
        }
    }
}

final class ShutdownChildComponent: Component, @unchecked Sendable {
    var app: ServerComponent { parent() }
    var work: ShutdownChildModule { module() }
}

final class ShutdownChildModule: Module<ShutdownChildComponent> {
    func handler() -> Resource {
        single {
            Resource("handler")
        } close: { [closed = component.app.closed] in
            closed.add($0.name)
        }
    }
}
