import Dirk
import DirkTestSupport
import Testing

@Suite("Shutdown of a parent under its children's async work")
struct ShutdownSeamStressTests {
    /// How many trials the stress test makes, each on a fresh parent: at least 1,000 in release
    /// builds; fewer in debug builds, several times slower, and under ThreadSanitizer.
    #if DEBUG
    static let trials = stressRounds(300)
    #else
    static let trials = stressRounds(1_000)
    #endif

    /// How many child components each trial runs a request in.
    static let requests = 4

    @Test(
        "children's async requests that entered their parent go on into it, sync and async, while it shuts down: each instance closed once"
    )
    func childrenGoOnWhileTheParentShutsDown() async {
        let checks = OffThreadChecks()
        var (trials, built, open, closedTwice) = (0, 0, 0, 0)
        for trial in 0..<Self.trials {
            let seed = UInt64(trial) &* 0x9E37_79B9 &+ 58
            let outcome = await withAsyncWatchdog {
                await SeamStressTrial(seed: seed, requests: Self.requests, checks: checks).run()
            }
            guard let outcome else { break }  // the watchdog recorded the hang
            trials += 1
            built += outcome.built
            open += outcome.leftOpen
            closedTwice += outcome.closedTwice
        }
        report(
            "shutdown under children's async work: \(trials) trials of \(Self.requests) requests, \(built) "
                + "instances built with a close action, \(open) left open, \(closedTwice) closed twice")
        checks.expectNone()
        #expect(trials == Self.trials, "a trial hung")
        #expect(built >= trials * Self.requests, "every request builds at least one instance")
        #expect(open == 0, "instances left open")
        #expect(closedTwice == 0, "instances closed twice")
    }
}

/// What one trial saw.
struct SeamStressOutcome: Sendable {
    let built: Int
    let leftOpen: Int
    let closedTwice: Int
}

/// One trial: each of `requests` child components runs an async request that enters the parent, by
/// an async or a sync call or from a child task; once all have entered, the parent shuts down while
/// the requests take more steps in it, sync and async, each building instances with close actions.
struct SeamStressTrial: Sendable {
    let seed: UInt64
    let requests: Int
    let checks: OffThreadChecks

    /// The steps each request takes in the parent after entering it.
    static let steps = 4

    func run() async -> SeamStressOutcome {
        var random = SplitMix(seed: seed)
        let app = SeamStressApp()
        let plans = (0..<requests).map { request in
            SeamStressPlan(
                request: request, wayIn: Int.random(in: 0..<3, using: &random),
                steps: (0..<Self.steps).map { _ in Int.random(in: 0..<2, using: &random) },
                yields: (0...Self.steps).map { _ in Int.random(in: 0..<4, using: &random) })
        }
        let (shutdownYields, requests) = (Int.random(in: 0..<8, using: &random), requests)
        let entered = Counter()
        let allEntered = Latch()
        await withTaskGroup(of: Void.self) { group in
            for plan in plans {
                group.addTask {
                    let request = SeamStressRequest().parent(app, as: SeamStressApp.self)
                    let result = await request.r.handle(plan) {
                        if entered.increment() == requests { allEntered.open() }
                    }
                    checks.check(
                        result == Self.steps + 1, "seed \(seed): request \(plan.request) returned \(result)")
                }
            }
            group.addTask {
                await allEntered.wait()
                for _ in 0..<shutdownYields { await Task.yield() }
                do {
                    try await app.shutdown()
                } catch {
                    checks.check(false, "seed \(seed): shutdown threw \(error)")
                }
            }
        }
        let (built, closed) = (app.ledger.built, app.ledger.closed)
        let leftOpen = built.subtracting(closed).count
        let closedTwice = closed.count - Set(closed).count
        checks.check(leftOpen == 0, "seed \(seed): built \(built.sorted()), closed \(closed.sorted())")
        checks.check(closedTwice == 0, "seed \(seed): closed twice: \(closed.sorted())")
        return SeamStressOutcome(built: built.count, leftOpen: leftOpen, closedTwice: closedTwice)
    }
}

/// What one request does: how it enters the parent (0: an async call, 1: a sync call, 2: a child
/// task's async call, each of a provider that builds), then each step (0: sync, 1: async), with yields between them.
struct SeamStressPlan: Sendable {
    let request: Int
    let wayIn: Int
    let steps: [Int]
    let yields: [Int]
}

/// The names of the instances built with a close action, and of those closed, in order.
final class SeamStressLedger: Sendable {
    private let lists = LockedBox<(built: Set<String>, closed: [String])>(([], []))
    var built: Set<String> { lists.withLock { $0.built } }
    var closed: [String] { lists.withLock { $0.closed } }

    func build(_ name: String) -> SeamStressResource {
        lists.withLock { _ = $0.built.insert(name) }
        return SeamStressResource(name: name)
    }

    func close(_ resource: SeamStressResource) { lists.withLock { $0.closed.append(resource.name) } }
}

final class SeamStressResource: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

final class SeamStressApp: Component, @unchecked Sendable {
    let ledger = SeamStressLedger()
    var a: SeamStressAppModule { module() }
}

final class SeamStressAppModule: Module<SeamStressApp> {
    /// The database every request enters the parent through.
    func db() async -> SeamStressResource {
        await single { c in
            await Task.yield()
            return c.ledger.build("db")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    /// A connection to the database, made on every call.
    func connection() async -> SeamStressResource {
        await transient { c in await c.a.db() }
    }

    /// A cache per key, built by a sync step.
    func cache(_ key: String) -> SeamStressResource {
        single(key: key) { c in
            c.ledger.build("cache \(key)")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    /// An async step's instance, one of a few.
    func queue() async -> SeamStressResource {
        await single { c in
            await Task.yield()
            return c.ledger.build("queue")
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }
}

final class SeamStressRequest: Component, @unchecked Sendable {
    var app: SeamStressApp { parent() }
    var r: SeamStressRequestModule { module() }
}

final class SeamStressRequestModule: Module<SeamStressRequest> {
    /// Enters the parent as `plan` says, calls `entered`, then takes the plan's steps there; returns
    /// how many calls into the parent returned.
    func handle(_ plan: SeamStressPlan, entered: @escaping @Sendable () -> Void) async -> Int {
        await transient { c in
            var calls = 0
            // Calls that enter the parent: a cached instance read before shutdown enters nothing.
            switch plan.wayIn {
            case 0: _ = await c.app.a.connection()
            case 1: _ = c.app.a.cache("request \(plan.request)")
            default:
                async let connection = c.app.a.connection()
                _ = await connection
            }
            calls += 1
            entered()
            for (index, step) in plan.steps.enumerated() {
                for _ in 0..<plan.yields[index] { await Task.yield() }
                if step == 0 {
                    _ = c.app.a.cache("request \(plan.request) step \(index)")
                } else {
                    _ = await c.app.a.queue()
                }
                calls += 1
            }
            return calls
        }
    }
}
