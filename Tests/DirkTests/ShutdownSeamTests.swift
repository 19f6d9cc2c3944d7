import Dirk
import DirkTestSupport
import Foundation
import Testing

/// Shutdown at the seams: a resolution that entered a component is one call for that component's
/// gate until it ends, however it got there (a sync or async call, a handle, a child component's
/// provider, a child task it awaits) and whatever its next step there is, sync or async.
@Suite("Shutdown across components, tasks and sync and async steps")
struct ShutdownSeamTests {
    @Test(
        "a resolution that entered a component before its shutdown began goes on into it, and shutdown waits for it and closes what it built",
        arguments: SeamWayIn.allCases, SeamNextStep.allCases)
    func resolutionGoesOnAndIsWaitedFor(way: SeamWayIn, next: SeamNextStep) async {
        let trial = SeamTrial()
        let outcome = await withAsyncWatchdog {
            let returned = LockedBox(false)
            let resolution = Task { await trial.request.r.handle(way, then: next) }
            await trial.request.entered.wait()
            let shutdown = Task {
                try? await trial.app.shutdown()
                returned.withLock { $0 = true }
            }
            while !trial.app.isShuttingDown && !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            // Not a timing assertion: a shutdown that waits cannot return before the resolution goes
            // on, however long this takes; the sleep only gives one that does not wait the time to.
            try? await Task.sleep(nanoseconds: 20_000_000)
            let (returnedEarly, closedEarly) = (returned.withLock { $0 }, trial.app.ledger.closed)
            trial.request.proceed.open()
            let result = await resolution.value
            await shutdown.value
            return SeamOutcome(
                returnedEarly: returnedEarly, closedEarly: closedEarly, result: result,
                built: trial.app.ledger.built, closed: trial.app.ledger.closed)
        }
        #expect(outcome?.returnedEarly == false, "shutdown returned while the resolution was under way")
        #expect(outcome?.closedEarly == [], "shutdown closed before the resolution ended")
        #expect(outcome?.result == "\(way.entryName), \(next.name)")
        #expect(outcome?.built.sorted() == [way.entryName, next.name].sorted())
        #expect(
            outcome?.closed.sorted() == outcome?.built.sorted(),
            "every instance built with a close action is closed exactly once")
    }

    @Test(
        "a resolution that shuts a component down while a child task of its own is inside it goes on once the child ends, and the child's instance is closed"
    )
    func shutdownWhileOwnChildTaskIsInside() async {
        let trial = SeamTrial()
        let result = await withAsyncWatchdog { await trial.request.r.shutsDownAppWhileChildIsInside() }
        #expect(result == 1)
        #expect(trial.app.ledger.built == ["async entry"])
        #expect(trial.app.ledger.closed == ["async entry"], "the shutdown closed what the child built")
    }

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "a resolution that awaits the shutdown of a component it entered stops with a message that names both components and the provider",
        arguments: SeamSelfShutdown.allCases)
    func awaitingTheShutdownOfAnEnteredComponentTraps(shape: SeamSelfShutdown) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [shape] in
            armExitTestWatchdog()
            let trial = SeamTrial()
            _ = await trial.request.r.shutsDownApp(shape)
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `SeamApp.shutdown()` was called in `SeamRequestModule.shutsDownApp(_:)` of `SeamRequest`, whose resolution has entered `SeamApp`: it called a provider of `SeamApp`, directly or through other components or tasks, and counts as a call in `SeamApp` until it ends. Shutdown waits for every call in the component to end, so it would wait for itself. Call `shutdown()` outside providers, where the application or scope ends, once the work that uses `SeamApp` is done."
            ), "\(shape): \(message)")
        #expect(!message.contains("watchdog:"), "\(shape): the shutdown hung instead of stopping the program")
    }
    #endif
}

/// How a resolution of `SeamRequest` that entered `SeamApp` awaits `SeamApp`'s shutdown.
enum SeamSelfShutdown: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case afterAsyncCall, afterSyncCall, throughChildComponent, inChildTask

    var testDescription: String { rawValue }
}

/// What one trial of the matrix saw.
struct SeamOutcome: Sendable {
    /// Whether shutdown returned while the resolution waited between its steps.
    let returnedEarly: Bool
    /// What shutdown closed while the resolution waited between its steps.
    let closedEarly: [String]
    /// What the resolution returned.
    let result: String
    let built: [String]
    let closed: [String]
}

/// A parent component, a child of it, and a grandchild whose provider is the resolution.
struct SeamTrial: Sendable {
    let app: SeamApp
    let request: SeamRequest

    init() {
        let app = SeamApp()
        let mid = SeamMid().parent(app, as: SeamApp.self)
        (self.app, request) = (app, SeamRequest(app: app).parent(mid, as: SeamMid.self))
    }
}

/// How a resolution of `SeamRequest` first enters its ancestor `SeamApp`.
enum SeamWayIn: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case syncCall, asyncCall, syncHandle, asyncHandle, childComponentSync, childComponentAsync
    case childTaskSync, childTaskAsync

    var testDescription: String { rawValue }

    /// What the first call builds in `SeamApp`.
    var entryName: String {
        switch self {
        case .syncCall, .syncHandle, .childComponentSync, .childTaskSync: "sync entry"
        case .asyncCall, .asyncHandle, .childComponentAsync, .childTaskAsync: "async entry"
        }
    }

    /// Enters `SeamApp` from a factory of `request`; returns the name of what it built there.
    func enter(from request: SeamRequest) async -> String {
        switch self {
        case .syncCall: return request.app.a.syncEntry().name
        case .asyncCall: return await request.app.a.asyncEntry().name
        case .syncHandle: return request.syncHandle().name
        case .asyncHandle: return await request.asyncHandle().name
        case .childComponentSync: return request.mid.m.viaAppSync().name
        case .childComponentAsync: return await request.mid.m.viaApp().name
        case .childTaskSync:
            async let entry = request.app.a.syncEntry()
            return await entry.name
        case .childTaskAsync:
            return await withTaskGroup(of: String.self) { group in
                group.addTask { await request.app.a.asyncEntry().name }
                return await group.next()!
            }
        }
    }
}

/// The resolution's next step in `SeamApp`, after its shutdown began.
enum SeamNextStep: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sync, async

    var testDescription: String { rawValue }

    /// What the step builds.
    var name: String { "\(rawValue) next" }

    /// Takes the step; returns the name of what it built.
    func take(in app: SeamApp) async -> String {
        switch self {
        case .sync: app.a.syncNext().name
        case .async: await app.a.asyncNext().name
        }
    }
}

/// The names of the instances built with a close action, and of those closed, in order.
final class SeamLedger: Sendable {
    private let lists = LockedBox<(built: [String], closed: [String])>(([], []))
    var built: [String] { lists.withLock { $0.built } }
    var closed: [String] { lists.withLock { $0.closed } }

    /// Records that `name` was built, and returns it as a resource.
    func build(_ name: String) -> Resource {
        lists.withLock { $0.built.append(name) }
        return Resource(name)
    }

    func close(_ resource: Resource) { lists.withLock { $0.closed.append(resource.name) } }
}

final class SeamApp: Component, @unchecked Sendable {
    let ledger = SeamLedger()
    var a: SeamAppModule { module() }
}

final class SeamAppModule: Module<SeamApp> {
    func syncEntry() -> Resource {
        single { c in
            c.ledger.build("sync entry")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    func asyncEntry() async -> Resource {
        await single { c in
            await Task.yield()
            return c.ledger.build("async entry")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    func syncNext() -> Resource {
        single { c in
            c.ledger.build("sync next")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    func asyncNext() async -> Resource {
        await single { c in
            await Task.yield()
            return c.ledger.build("async next")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }
}

/// A child of `SeamApp`, through which a resolution of its own child reaches `SeamApp`.
final class SeamMid: Component, @unchecked Sendable {
    var app: SeamApp { parent() }
    var m: SeamMidModule { module() }
}

final class SeamMidModule: Module<SeamMid> {
    func viaAppSync() -> Resource { transient { c in c.app.a.syncEntry() } }
    func viaApp() async -> Resource { await transient { c in await c.app.a.asyncEntry() } }
}

/// A request, a child of `SeamMid`, whose async provider enters `SeamApp`, then waits until the test
/// lets it take its next step there.
final class SeamRequest: Component, @unchecked Sendable {
    /// Opens when the resolution has entered `SeamApp`.
    let entered = Latch()
    /// Lets the resolution take its next step.
    let proceed = Latch()
    /// Handles into `SeamApp`, made before the resolution.
    let syncHandle: Provider<Resource>
    let asyncHandle: AsyncProvider<Resource, Never>

    init(app: SeamApp) {
        syncHandle = app.provider { $0.a.syncEntry() }
        asyncHandle = app.provider { await $0.a.asyncEntry() }
        super.init()
    }

    var mid: SeamMid { parent() }
    var app: SeamApp { parent() }
    var r: SeamRequestModule { module() }
}

final class SeamRequestModule: Module<SeamRequest> {
    /// Enters `SeamApp` the `way` given, waits until the test lets it go on, then takes `next`.
    func handle(_ way: SeamWayIn, then next: SeamNextStep) async -> String {
        await transient { c in
            let entry = await way.enter(from: c)
            c.entered.open()
            await c.proceed.wait()
            return "\(entry), \(await next.take(in: c.app))"
        }
    }

    /// Enters `SeamApp` in a child task, which stays in it until its shutdown has begun, and shuts
    /// `SeamApp` down meanwhile, without having entered it itself.
    func shutsDownAppWhileChildIsInside() async -> Int {
        await transient { c in
            async let child = c.r.staysInAppUntilItShutsDown()
            await c.entered.wait()
            try? await c.app.shutdown()
            return await child
        }
    }

    /// Enters `SeamApp`, then returns once its shutdown has begun.
    func staysInAppUntilItShutsDown() async -> Int {
        await transient { c in
            _ = await c.app.a.asyncEntry()
            c.entered.open()
            while !c.app.isShuttingDown { try? await Task.sleep(nanoseconds: 1_000_000) }
            return 1
        }
    }

    /// Enters `SeamApp`, then awaits its shutdown as `shape` says.
    func shutsDownApp(_ shape: SeamSelfShutdown) async -> Int {
        await transient { c in
            switch shape {
            case .afterAsyncCall: _ = await c.app.a.asyncEntry()
            case .afterSyncCall: _ = c.app.a.syncEntry()
            case .throughChildComponent: _ = await c.mid.m.viaApp()
            case .inChildTask: _ = c.app.a.syncEntry()
            }
            if shape == .inChildTask {
                async let shutdown: Void = { try? await c.app.shutdown() }()
                await shutdown
            } else {
                try? await c.app.shutdown()
            }
            return 1
        }
    }
}
