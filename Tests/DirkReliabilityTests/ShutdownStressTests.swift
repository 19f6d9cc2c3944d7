import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Shutdown under load")
struct ShutdownStressTests {
    /// How many trials the stress test makes, each on a fresh component: at least 1,000 in release
    /// builds; fewer in debug builds, several times slower, and under ThreadSanitizer.
    #if DEBUG
    static let trials = stressRounds(500)
    #else
    static let trials = stressRounds(1_000)
    #endif

    /// How many threads each trial starts, beside its tasks: 64 in release builds.
    #if DEBUG
    static let threads = isUnderThreadSanitizer ? 16 : 32
    #else
    static let threads = isUnderThreadSanitizer ? 16 : 64
    #endif

    /// How many tasks each trial starts, beside its threads.
    static let tasks = 8

    @Test(
        "first calls of every strategy racing shutdown: each instance is closed once, only later calls refused"
    )
    func firstCallsRaceShutdown() async {
        let checks = OffThreadChecks()
        var totals = LoadTotals()
        for trial in 0..<Self.trials {
            let seed = UInt64(trial) &* 0x9E37_79B9 &+ 49
            let outcome = await withAsyncWatchdog {
                await LoadTrial(seed: seed, threads: Self.threads, tasks: Self.tasks, checks: checks).run()
            }
            guard let outcome else { break }  // the watchdog recorded the hang
            totals.add(outcome)
        }
        report(
            "shutdown under load: \(totals.trials) trials of \(Self.threads) threads and \(Self.tasks) tasks, "
                + "\(totals.admitted) calls admitted, \(totals.refused) refused, \(totals.closed) instances closed"
        )
        checks.expectNone()
        #expect(totals.trials == Self.trials, "a trial hung")
        #expect(totals.admitted > 0, "no call was admitted")
        #expect(totals.refused > 0, "no call was refused")
        #expect(
            totals.closed >= totals.trials, "every trial builds at least one instance with a close action")
    }
}

/// What the trials saw, added up.
struct LoadTotals {
    var trials = 0
    var admitted = 0
    var refused = 0
    var closed = 0

    mutating func add(_ outcome: LoadOutcome) {
        trials += 1
        admitted += outcome.admitted
        refused += outcome.refused
        closed += outcome.closed
    }
}

/// What one trial saw.
struct LoadOutcome: Sendable {
    let admitted: Int
    let refused: Int
    let closed: Int
}

/// One trial: threads and tasks make first calls of every strategy on a fresh component, through
/// its gate, while `shutdown()` runs; the call whose end is the `trigger`-th starts the shutdown.
struct LoadTrial: Sendable {
    let seed: UInt64
    let threads: Int
    let tasks: Int
    let checks: OffThreadChecks

    /// The calls each thread or task makes before it may wait for shutdown.
    static let callsEach = 6
    /// The keys of `LoadModule.keyed(_:)` that the calls use.
    static let keys = 24

    func run() async -> LoadOutcome {
        var random = SplitMix(seed: seed)
        let app = LoadComponent()
        let ledger = app.ledger
        let total = (threads + tasks) * Self.callsEach
        let trigger = Int.random(in: 1...total / 2, using: &random)
        let (start, endedCalls, admitted, refused) = (StartLine(), Counter(), Counter(), Counter())
        let shutdownCalled = LockedBox(false)
        let shutdownBegins = Latch()
        // The handles are made before shutdown; the Lazy handles are read once each, at most.
        let lazies = (0..<threads).map { thread in app.lazy { $0.load.keyed(thread % Self.keys) } }
        let transients = app.provider { $0.load.transient(0) }
        let asyncSingles = app.provider { await $0.load.asyncSingle() }
        let plans = (0..<threads + tasks).map { _ in
            (0..<Self.callsEach).map { _ in
                LoadCall(
                    kind: Int.random(in: 0..<6, using: &random),
                    key: Int.random(in: 0..<Self.keys, using: &random))
            }
        }

        /// Counts a call that returned `id`, nil if the gate refused it; the `trigger`-th starts
        /// the shutdown.
        @Sendable func ended(_ id: Int?, _ call: String) {
            if id == nil {
                refused.increment()
                checks.check(app.isShuttingDown, "seed \(seed): \(call) was refused before shutdown began")
                checks.check(
                    shutdownCalled.withLock { $0 }, "seed \(seed): \(call) refused, shutdown not called")
            } else {
                admitted.increment()
            }
            let count = endedCalls.increment()
            // A call that ended before the trigger-th began before shutdown did: it is admitted.
            if count <= trigger {
                checks.check(id != nil, "seed \(seed): \(call) refused before shutdown began")
            }
            if count == trigger { shutdownBegins.open() }
        }

        let threadsDone = DispatchGroup()
        for thread in 0..<threads {
            threadsDone.enter()
            Thread {
                defer { threadsDone.leave() }
                start.wait()
                for call in plans[thread] {
                    let id = try! app.ifAdmitted { () -> Int in
                        switch call.kind {
                        case 0: app.load.single().id
                        case 1: app.load.keyed(call.key).id
                        case 2: app.load.transient(call.key).id
                        case 3: app.load.scoped(call.key).id
                        case 4: lazies[thread].value.id
                        default: transients().id
                        }
                    }
                    ended(id, "thread call \(call)")
                }
                // A few threads call once more after shutdown began: refused, every time.
                guard thread.isMultiple(of: 8) else { return }
                while !app.isShuttingDown { usleep(100) }
                let late = try! app.ifAdmitted { app.load.keyed(thread % Self.keys).id }
                checks.check(late == nil, "seed \(seed): a call after shutdown began was admitted")
                if late == nil { refused.increment() }
            }.start()
        }
        start.open()

        let returned = LockedBox(false)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for call in plans[threads + task] {
                        let id = try! await app.ifAdmittedAwaiting { () async -> Int in
                            switch call.kind % 3 {
                            case 0: await app.load.asyncSingle().id
                            case 1: await asyncSingles().id
                            default: await app.load.asyncTransient(call.key).id
                            }
                        }
                        ended(id, "task call \(call)")
                    }
                }
            }
            group.addTask {
                await shutdownBegins.wait()
                shutdownCalled.withLock { $0 = true }
                do {
                    try await app.shutdown()
                } catch {
                    checks.check(false, "seed \(seed): shutdown threw \(error)")
                }
                returned.withLock { $0 = true }
            }
        }
        await withCheckedContinuation { continuation in
            threadsDone.notify(queue: .global()) { continuation.resume() }
        }

        checks.check(returned.withLock { $0 }, "seed \(seed): shutdown did not return")
        checks.check(
            try! app.ifAdmitted { app.load.single().id } == nil, "seed \(seed): admitted after shutdown")
        let (built, closed) = (ledger.built, ledger.closed)
        checks.check(!built.isEmpty, "seed \(seed): the first call built nothing to close")
        checks.check(
            built.count <= Self.keys + 2,
            "seed \(seed): \(built.count) instances built for \(Self.keys + 2) cells")
        checks.check(
            Set(closed).count == closed.count, "seed \(seed): an instance was closed twice: \(closed)")
        checks.check(
            Set(closed) == built, "seed \(seed): built \(built.sorted()), closed \(closed.sorted())")
        return LoadOutcome(admitted: admitted.count, refused: refused.count, closed: closed.count)
    }
}

/// One call a thread or task makes: which provider or handle, with which key.
struct LoadCall: Sendable, CustomStringConvertible {
    let kind: Int
    let key: Int

    var description: String { "\(kind) with key \(key)" }
}

/// The ids of the instances built with a close action, and of those closed, in order.
final class LoadLedger: Sendable {
    private let ids = Counter()
    private let builtIDs = LockedBox<Set<Int>>([])
    private let closedIDs = LockedBox<[Int]>([])

    var built: Set<Int> { builtIDs.withLock { $0 } }
    var closed: [Int] { closedIDs.withLock { $0 } }

    /// An instance with a new id, recorded as built.
    func build() -> LoadInstance {
        let instance = LoadInstance(id: ids.increment())
        builtIDs.withLock { _ = $0.insert(instance.id) }
        return instance
    }

    /// The close action of an instance.
    func close(_ instance: LoadInstance) {
        closedIDs.withLock { $0.append(instance.id) }
    }
}

final class LoadInstance: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

final class LoadComponent: Component, @unchecked Sendable {
    let ledger = LoadLedger()
    var load: LoadModule { module() }
}

final class LoadModule: Module<LoadComponent> {
    func single() -> LoadInstance {
        single { c in
            c.ledger.build()
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    func keyed(_ key: Int) -> LoadInstance {
        single(key: key) { c in
            c.ledger.build()
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    func asyncSingle() async -> LoadInstance {
        await single { c in
            await Task.yield()
            return c.ledger.build()
        } close: { [ledger = component.ledger] in
            ledger.close($0)
        }
    }

    /// A new instance without a close action, which builds the key's on its first call.
    func transient(_ key: Int) -> LoadInstance {
        transient { c in LoadInstance(id: -c.load.keyed(key).id) }
    }

    func scoped(_ key: Int) -> LoadInstance {
        scoped { c in LoadInstance(id: -c.load.keyed(key).id) }
    }

    func asyncTransient(_ key: Int) async -> LoadInstance {
        await transient { c in
            await Task.yield()
            return LoadInstance(id: -c.load.keyed(key).id)
        }
    }
}

/// Holds threads until it opens, then lets them all go at once.
final class StartLine: @unchecked Sendable {
    // `isOpen` is guarded by `condition`.
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}
