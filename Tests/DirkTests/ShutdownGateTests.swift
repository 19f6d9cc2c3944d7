import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// The component's gate at shutdown (issue 49): every outermost call that may build in a component
/// is counted in, `shutdown()` waits for each, and refuses those that begin after it.
@Suite("Shutdown gate")
struct ShutdownGateTests {
    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "a handle made before shutdown and read after it stops with a message that names the provider it reads and where it was made",
        arguments: ShutHandle.allCases)
    func handleAfterShutdownTraps(handle: ShutHandle) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [handle] in
            armExitTestWatchdog()
            await handle.callAfterShutdown()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: \(handle.article) `\(handle.typeName)` made at DirkTests/ShutdownGateTests.swift:"),
            "\(handle): \(message)")
        let reads =
            handle.provider.map { ": reading it calls `\($0)`, which the component no longer serves." } ?? "."
        #expect(
            message.contains("was read after its component `DrainComponent` was shut down\(reads)"),
            "\(handle): \(message)")
        #expect(message.contains("Read the handle before calling `shutdown()`"), "\(handle): \(message)")
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/ShutdownGateTests.swift:"), "\(handle): \(trap)")
        #expect(!message.contains("watchdog:"), "\(handle): the call after shutdown did not stop the program")
    }
    #endif

    @Test(
        "shutdown waits for a factory under way that caches nothing, and closes what it builds after shutdown began",
        arguments: BlockedFactory.allCases)
    func waitsForFactoryUnderWay(factory: BlockedFactory) async {
        let app = DrainComponent()
        let outcome = await expectShutdownWaits(
            for: app, call: { await factory.call(app) }, untilEntered: { await app.started.wait() },
            release: { await factory.release(app) })
        #expect(outcome?.returnedEarly == false, "\(factory): shutdown returned while the factory ran")
        #expect(outcome?.closedEarly.isEmpty == true, "\(factory): shutdown closed before the factory ended")
        #expect(outcome?.built == factory.builtName)
        #expect(outcome?.closed == [factory.closedName], "\(factory): what the factory built was not closed")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a close action that calls its own component's shutdown() or provider stops with a message")
    func closeActionMisuseTraps() async {
        let shutdown = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = DrainComponent()
            _ = app.parts.shutsDownOnClose()
            try? await app.shutdown()
        }
        #expect(
            standardError(of: shutdown).contains(
                "Dirk: `DrainComponent.shutdown()` was called by the close action of `DrainModule.shutsDownOnClose()`, which that shutdown runs, so it would wait for itself."
            ), "\(standardError(of: shutdown))")
        let provider = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = DrainComponent()
            _ = app.parts.resource()
            _ = app.parts.callsProviderOnClose()
            try? await app.shutdown()
        }
        #expect(
            standardError(of: provider).contains(
                "Dirk: `DrainModule.resource()` was called by the close action of `DrainModule.callsProviderOnClose()` while its component `DrainComponent` was shutting down."
            ), "\(standardError(of: provider))")
        // The advice that ends the message; ErrorMessages compiles it as printed.
        #expect(
            standardError(of: provider).contains(
                "give it what its close action needs in the factory, where the component `c` is at hand, as in `single { c in Connection(pool: c.storage.pool()) } close: { await $0.close() }`."
            ), "\(standardError(of: provider))")
    }
    #endif

    @Test("shutdown waits for a single(key:) call whose key is being hashed, and closes the key's instance")
    func waitsForKeyBeingHashed() async {
        let app = DrainComponent()
        let key = BlockingKey("slow")
        let outcome = await expectShutdownWaits(
            for: app, call: { await onOwnThread { app.parts.session(key).name } },
            untilEntered: { await key.blocker.entered.wait() },
            release: { key.blocker.release.signal() })
        #expect(outcome?.returnedEarly == false, "shutdown returned while the key was being hashed")
        #expect(outcome?.closedEarly.isEmpty == true, "shutdown closed before the call ended")
        #expect(outcome?.built == "session slow")
        #expect(outcome?.closed == ["session slow"], "the instance the call built was not closed")
    }

    @Test("a close action that blocks, throws or resets its component does not keep the others from closing")
    func closeActionsThatMisbehave() async {
        let closed = Closed()
        let app = DrainComponent(closed: closed)
        _ = app.parts.resource()
        _ = app.parts.failing(1)
        _ = app.parts.slowToClose()
        _ = app.parts.heldOnClose()
        _ = app.parts.resetsOnClose()
        _ = app.parts.failing(2)
        _ = app.parts.session(BlockingKey("last", blocking: false))
        let outcome = await withAsyncWatchdog { () -> HeldCloseOutcome in
            let first = Task { await Self.shutdownError(of: app) }
            await app.started.wait()  // the held close action runs
            let closedWhileHeld = closed.names
            let refused = try! app.ifAdmitted { app.parts.resource() } == nil
            let returned = LockedBox(false)
            let second = Task {
                let error = await Self.shutdownError(of: app)
                returned.withLock { $0 = true }
                return error
            }
            // Not a timing assertion: the second call cannot return before the close action does.
            try? await Task.sleep(nanoseconds: 20_000_000)
            let returnedEarly = returned.withLock { $0 }
            app.asyncRelease.open()
            return HeldCloseOutcome(
                closedWhileHeld: closedWhileHeld, refusedWhileHeld: refused,
                secondReturnedEarly: returnedEarly,
                first: await first.value, second: await second.value)
        }
        #expect(outcome?.closedWhileHeld == ["session last", "failing 2", "resets on close"])
        #expect(outcome?.refusedWhileHeld == true, "a call while close actions ran was admitted")
        #expect(outcome?.secondReturnedEarly == false, "a second shutdown returned before the first ended")
        #expect(
            closed.names == [
                "session last", "failing 2", "resets on close", "held on close", "slow to close", "failing 1",
                "resource",
            ])
        for error in [outcome?.first, outcome?.second] {
            let failures = error?.failures ?? []
            #expect(failures.map(\.provider) == ["DrainModule.failing(_:)", "DrainModule.failing(_:)"])
            #expect(failures.map { "\($0.error)" } == ["CloseFailure(number: 2)", "CloseFailure(number: 1)"])
        }
    }

    /// What a shutdown whose close action was held showed, and what its two calls threw.
    struct HeldCloseOutcome: Sendable {
        /// What was closed when the held close action began.
        let closedWhileHeld: [String]
        /// Whether the gate refused a call made while the close action was held.
        let refusedWhileHeld: Bool
        /// Whether a second `shutdown()`, made while the close action was held, returned before it.
        let secondReturnedEarly: Bool
        let first: ShutdownError?
        let second: ShutdownError?
    }

    /// What `app.shutdown()` throws, nil if nothing.
    private static func shutdownError(of app: DrainComponent) async -> ShutdownError? {
        do throws(ShutdownError) {
            try await app.shutdown()
            return nil
        } catch {
            return error
        }
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a component released without shutdown names each provider with instances to close once")
    func releasedOpenNamesEachProviderOnce() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            do {
                let app = ServerComponent(closed: Closed())
                _ = app.storage.session(id: "a")
                _ = app.storage.session(id: "b")
            }
        }
        let message = standardError(of: result)
        #if DEBUG
        #expect(
            message.contains(
                "Dirk: warning: `ServerComponent` was released without `shutdown()` while it held instances with close actions, which never ran: `ShutdownStorageModule.session(id:)`. Call"
            ), "\(message)")
        #expect(
            message.components(separatedBy: "ShutdownStorageModule.session(id:)").count == 2, "\(message)"
        )
        #else
        #expect(!message.contains("was released without `shutdown()`"), "release builds say nothing")
        #endif
    }
    #endif

    @Test("withShutdown returns the body's value, rethrows its error, and closes the instances either way")
    func withShutdownClosesAfterTheBody() async {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
        let name = try? await app.withShutdown { app in
            let name = app.storage.settings().name
            #expect(!app.isShuttingDown)
            #expect(closed.names.isEmpty, "closed before the body returned")
            return name
        }
        #expect(name == "settings")
        #expect(app.isShuttingDown)
        #expect(closed.names == ["settings"])

        let failed = Closed()
        let thrower = ServerComponent(closed: failed)
        var thrown: CloseFailure?
        do {
            try await thrower.withShutdown { app in
                _ = app.storage.settings()
                _ = app.storage.failing(1)  // its close action throws too: the body's error wins
                throw CloseFailure(number: 7)
            }
        } catch {
            thrown = error as? CloseFailure
        }
        #expect(thrown?.number == 7)
        #expect(failed.names == ["failing 1", "settings"], "the body's error skipped the shutdown")

        let closer = Closed()
        let closing = ServerComponent(closed: closer)
        do {
            _ = try await closing.withShutdown { app in app.storage.failing(3).name }
            Issue.record("withShutdown returned though a close action threw")
        } catch let error as ShutdownError {
            #expect(error.failures.map(\.provider) == ["ShutdownStorageModule.failing(_:)"])
            #expect(error.failures.map { "\($0.error)" } == ["CloseFailure(number: 3)"])
        } catch {
            Issue.record("withShutdown threw \(error), not a ShutdownError")
        }
        #expect(closer.names == ["failing 3"])
    }

    /// What a shutdown did while a call it must wait for was held, and after the call went on.
    struct WaitOutcome: Sendable {
        /// Whether shutdown returned while the call was held.
        let returnedEarly: Bool
        /// What shutdown closed while the call was held.
        let closedEarly: [String]
        /// The name of what the call returned.
        let built: String
        /// What shutdown closed once it returned.
        let closed: [String]
    }

    /// Makes `call` in a task of its own, and once `untilEntered` says it is held inside the
    /// component, shuts the component down; once shutdown has begun, and a shutdown that did not wait
    /// has had time to return, lets the call go on with `release`, then waits for both. Nil if it
    /// hung.
    private func expectShutdownWaits(
        for app: DrainComponent, call: @escaping @Sendable () async -> String,
        untilEntered: @escaping @Sendable () async -> Void, release: @escaping @Sendable () async -> Void
    ) async -> WaitOutcome? {
        await withAsyncWatchdog {
            let returned = LockedBox(false)
            let made = Task { await call() }
            await untilEntered()
            let shutdown = Task {
                try? await app.shutdown()
                returned.withLock { $0 = true }
            }
            while !app.isShuttingDown && !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
            // Not a timing assertion: a shutdown that waits cannot return before `release`, however
            // long this takes; the sleep only gives one that does not wait the time to return early.
            try? await Task.sleep(nanoseconds: 20_000_000)
            let (returnedEarly, closedEarly) = (returned.withLock { $0 }, app.closed.names)
            await release()
            let built = await made.value
            await shutdown.value
            return WaitOutcome(
                returnedEarly: returnedEarly, closedEarly: closedEarly, built: built, closed: app.closed.names
            )
        }
    }
}

/// The handles made before shutdown and called after it, each in a child process.
enum ShutHandle: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case provider, asyncProvider, lazy, asyncLazy, mainActorLazy
    /// A handle whose closure calls none of the component's providers.
    case lazyOfNoProvider

    var testDescription: String { rawValue }

    var typeName: String {
        switch self {
        case .provider: "Provider<Resource>"
        case .asyncProvider: "AsyncProvider<Resource, Never>"
        case .lazy, .lazyOfNoProvider: "Lazy<Resource>"
        case .asyncLazy: "AsyncLazy<Resource, Never>"
        case .mainActorLazy: "MainActorLazy<Resource>"
        }
    }

    /// The article the message puts before the handle's type.
    var article: String { self == .asyncProvider || self == .asyncLazy ? "an" : "a" }

    /// The provider the handle reads, which the message names.
    var provider: String? {
        switch self {
        case .provider, .lazy, .mainActorLazy: "DrainModule.resource()"
        case .asyncProvider, .asyncLazy: "DrainModule.asyncResource()"
        case .lazyOfNoProvider: nil
        }
    }

    /// Makes the handle, shuts its component down, then calls the handle; it never returns.
    func callAfterShutdown() async {
        let app = DrainComponent()
        switch self {
        case .provider:
            let handle = app.provider { $0.parts.resource() }
            try? await app.shutdown()
            _ = handle()
        case .asyncProvider:
            let handle = app.provider { await $0.parts.asyncResource() }
            try? await app.shutdown()
            _ = await handle()
        case .lazy:
            let handle = app.lazy { $0.parts.resource() }
            try? await app.shutdown()
            _ = handle.value
        case .asyncLazy:
            let handle = app.lazy { await $0.parts.asyncResource() }
            try? await app.shutdown()
            _ = await handle.value
        case .mainActorLazy:
            let handle = app.mainActorLazy { $0.parts.resource() }
            try? await app.shutdown()
            await MainActor.run { _ = handle.value }
        case .lazyOfNoProvider:
            let handle = app.lazy { _ in Resource("made by the handle") }
            try? await app.shutdown()
            _ = handle.value
        }
    }
}

/// Factories that cache nothing, held inside the component until the test lets them go on.
enum BlockedFactory: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case transient, scoped, asyncTransient

    var testDescription: String { rawValue }

    /// What the factory returns.
    var builtName: String { "\(rawValue) of \(closedName)" }

    /// What the factory builds with a close action, through a `single` it calls first.
    var closedName: String { self == .asyncTransient ? "async resource" : "resource" }

    /// Calls the factory's provider, from a thread of its own for the synchronous ones, which block
    /// it; returns what it returned.
    func call(_ app: DrainComponent) async -> String {
        switch self {
        case .transient: await onOwnThread { app.parts.blockingTransient().name }
        case .scoped: await onOwnThread { app.parts.blockingScoped().name }
        case .asyncTransient: await app.parts.blockingAsyncTransient().name
        }
    }

    /// Lets the held factory go on.
    func release(_ app: DrainComponent) async {
        switch self {
        case .transient, .scoped: app.release.signal()
        case .asyncTransient: app.asyncRelease.open()
        }
    }
}

/// Runs `body` on a thread of its own, which it may block, and returns what it returns.
private func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A key whose first hashing, while armed, waits until the test releases it.
struct BlockingKey: Hashable, Sendable {
    let name: String
    let blocker: HashBlocker

    init(_ name: String, blocking: Bool = true) {
        self.name = name
        blocker = HashBlocker(armed: blocking)
    }

    static func == (lhs: BlockingKey, rhs: BlockingKey) -> Bool { lhs.name == rhs.name }

    func hash(into hasher: inout Hasher) {
        blocker.blockOnce()
        hasher.combine(name)
    }
}

/// Holds the first `hash(into:)` of a `BlockingKey`, and that one only.
final class HashBlocker: Sendable {
    /// Opens when the hashing is held.
    let entered = Latch()
    /// Lets the held hashing go on.
    let release = DispatchSemaphore(value: 0)
    private let armed: LockedBox<Bool>

    init(armed: Bool) {
        self.armed = LockedBox(armed)
    }

    func blockOnce() {
        guard
            armed.withLock({ isArmed in
                defer { isArmed = false }
                return isArmed
            })
        else { return }
        entered.open()
        release.wait()
    }
}

final class DrainComponent: Component, @unchecked Sendable {
    let closed: Closed
    /// Opens when a blocking factory has begun.
    let started = Latch()
    /// Lets a blocked synchronous factory go on.
    let release = DispatchSemaphore(value: 0)
    /// Lets a blocked async factory go on.
    let asyncRelease = Latch()

    init(closed: Closed = Closed()) {
        self.closed = closed
        super.init()
    }

    var parts: DrainModule { module() }
}

final class DrainModule: Module<DrainComponent> {
    func resource() -> Resource {
        single {
            Resource("resource")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }

    func asyncResource() async -> Resource {
        await single {
            await Task.yield()
            return Resource("async resource")
        } close: { [closed = component.closed] in
            closed.add($0.name)
        }
    }

    func session(_ key: BlockingKey) -> Resource {
        single(key: key) {
            Resource("session \(key.name)")
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

    /// Its close action blocks its thread for a while before it returns.
    func slowToClose() -> Resource {
        single {
            Resource("slow to close")
        } close: { [closed = component.closed] in
            usleep(50_000)
            closed.add($0.name)
        }
    }

    /// Its close action says it runs, through `started`, and waits until the test opens
    /// `asyncRelease`.
    func heldOnClose() -> Resource {
        single {
            Resource("held on close")
        } close: { [closed = component.closed, weak app = component] in
            app?.started.open()
            await app?.asyncRelease.wait()
            closed.add($0.name)
        }
    }

    /// Its close action resets the component being shut down.
    func resetsOnClose() -> Resource {
        single {
            Resource("resets on close")
        } close: { [closed = component.closed, weak app = component] in
            app?.reset()
            closed.add($0.name)
        }
    }

    /// Its close action shuts its own component down, which runs that close action.
    func shutsDownOnClose() -> Resource {
        single {
            Resource("shuts down on close")
        } close: { [weak app = component] _ in
            try? await app?.shutdown()
        }
    }

    /// Its close action calls a provider of the component being shut down.
    func callsProviderOnClose() -> Resource {
        single {
            Resource("calls a provider on close")
        } close: { [weak app = component] _ in
            _ = app?.parts.resource()
        }
    }

    func blockingTransient() -> Resource {
        transient { c in
            c.started.open()
            c.release.wait()
            return Resource("transient of \(c.parts.resource().name)")
        }
    }

    func blockingScoped() -> Resource {
        scoped { c in
            c.started.open()
            c.release.wait()
            return Resource("scoped of \(c.parts.resource().name)")
        }
    }

    func blockingAsyncTransient() async -> Resource {
        await transient { c in
            c.started.open()
            await c.asyncRelease.wait()
            return Resource("asyncTransient of \(await c.parts.asyncResource().name)")
        }
    }
}
