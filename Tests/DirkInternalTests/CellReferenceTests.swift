import Dirk
import DirkTestSupport
import Foundation
import Testing

@Suite("A build-once cell resolving for threads")
struct CellReferenceTests {
    @Test("one build serves every caller when many threads ask at once")
    func oneBuildForConcurrentCallers() {
        for round in 0..<20 {
            let standalone = StandaloneCell()
            let cell = Unchecked(standalone.reference)
            let builds = Counter()
            let results = LockedBox<[ObjectIdentifier]>([])
            // A waiter never woken would hang: the watchdog ends the test instead.
            withWatchdog {
                DispatchQueue.concurrentPerform(iterations: 16) { _ in
                    let item = cell.value.resolve(step: makeStep()) {
                        builds.increment()
                        return Item(round)
                    }
                    results.withLock { $0.append(ObjectIdentifier(item)) }
                }
            }
            #expect(builds.count == 1)
            #expect(results.withLock { $0.count } == 16)
            #expect(Set(results.withLock { $0 }).count == 1)
            #expect(cell.value.readyValue.number == round)
            #expect(standalone.readyValue.number == round, "the cell's own reading agrees")
        }
    }

    @Test("callers that arrive while a build runs wait for it and all get its instance")
    func waitersGetTheInstance() {
        let callers = 8
        let cell = Unchecked(StandaloneCell().reference)
        let builds = Counter()
        let results = LockedBox<[ObjectIdentifier]>([])
        withWatchdog {
            onThreads(callers) { _ in
                let item = cell.value.resolve(step: makeStep()) {
                    builds.increment()
                    // Every other caller is asleep on this build before it ends.
                    waitUntil { cell.value.waiterCount == callers - 1 }
                    return Item()
                }
                results.withLock { $0.append(ObjectIdentifier(item)) }
            }
        }
        #expect(builds.count == 1)
        #expect(results.withLock { $0.count } == callers)
        #expect(Set(results.withLock { $0 }).count == 1)
        #expect(cell.value.waiterCount == 0 && !cell.value.isBuilding)
    }

    @Test(
        "a thread counted among a build's waiters has recorded what it waits for, which the cycle detector follows"
    )
    func waitersRecordTheirWaitFirst() {
        let callers = 8
        let cell = Unchecked(StandaloneCell().reference)
        let agents = LockedBox<[Int: ResolutionContext]>([:])
        let unrecorded = LockedBox<Int?>(nil)
        withWatchdog {
            onThreads(callers) { index in
                agents.withLock { $0[index] = .current }
                _ = cell.value.resolve(step: makeStep()) {
                    // Each caller counted here stored its agent before it asked.
                    waitUntil { cell.value.waiterCount == callers - 1 }
                    let waiting = agents.withLock { $0 }.filter { $0.key != index }.values
                    unrecorded.withLock { $0 = waiting.count { $0.waitingFor?.key != cell.value.key } }
                    return Item()
                }
            }
        }
        #expect(unrecorded.withLock { $0 } == 0, "a waiter counted before it recorded its wait")
    }

    @Test("a build that throws runs once and gives every waiting caller the very same error")
    func failureReachesEveryWaiter() {
        let callers = 8
        let cell = Unchecked(StandaloneCell().reference)
        let builds = Counter()
        let failure = TestFailure(1)
        let caught = LockedBox<[ObjectIdentifier?]>([])
        withWatchdog {
            onThreads(callers) { _ in
                do throws(TestFailure) {
                    _ = try cell.value.resolve(step: makeStep()) { () throws(TestFailure) -> Item in
                        builds.increment()
                        waitUntil { cell.value.waiterCount == callers - 1 }
                        throw failure
                    }
                    caught.withLock { $0.append(nil) }
                } catch {
                    caught.withLock { $0.append(ObjectIdentifier(error)) }
                }
            }
        }
        #expect(builds.count == 1)
        #expect(caught.withLock { $0 } == Array(repeating: ObjectIdentifier(failure), count: callers))
        #expect(!cell.value.isBuilding && !cell.value.hasValue)
    }

    @Test("the call after a failed build builds again, and the one after that finds its instance")
    func buildsAgainAfterFailure() throws {
        let cell = StandaloneCell().reference
        let builds = Counter()
        #expect(throws: TestFailure.self) {
            _ = try cell.resolve(step: makeStep()) { () throws(TestFailure) -> Item in
                builds.increment()
                throw TestFailure(1)
            }
        }
        #expect(!cell.hasValue)
        let built = cell.resolve(step: makeStep()) {
            builds.increment()
            return Item(2)
        }
        let found = cell.resolve(step: makeStep()) {
            builds.increment()
            return Item(3)
        }
        #expect(builds.count == 2)
        #expect((built as? Item)?.number == 2 && found === built)
    }

    @Test("reset() during a build leaves it to finish: its instance is cached and reaches its waiters")
    func resetDuringBuild() {
        let cell = Unchecked(StandaloneCell().reference)
        let builds = Counter()
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let results = LockedBox<[ObjectIdentifier]>([])
        let duringBuild = LockedBox<(reset: AnyObject?, isBuilding: Bool, waiters: Int)?>(nil)
        withWatchdog {
            let finished = DispatchGroup()
            for _ in 0..<2 {
                DispatchQueue.global().async(group: finished) {
                    let item = cell.value.resolve(step: makeStep()) {
                        builds.increment()
                        started.signal()
                        proceed.wait()
                        return Item(1)
                    }
                    results.withLock { $0.append(ObjectIdentifier(item)) }
                }
            }
            started.wait()
            waitUntil { cell.value.waiterCount == 1 }
            let reset = cell.value.reset()
            duringBuild.withLock { $0 = (reset, cell.value.isBuilding, cell.value.waiterCount) }
            proceed.signal()
            finished.wait()
        }
        let (reset, isBuilding, waiters) = duringBuild.withLock { $0 } ?? (nil, false, 0)
        #expect(reset == nil, "a build under way has nothing to reset")
        #expect(isBuilding && waiters == 1, "reset leaves the build and its waiter alone")
        let built = cell.value.readyValue
        #expect((built as? Item)?.number == 1)
        #expect(builds.count == 1)
        #expect(results.withLock { $0 } == Array(repeating: built.map(ObjectIdentifier.init), count: 2))
        // Reset once the build is done empties the cell, and the next call builds again.
        #expect(cell.value.reset() === built)
        #expect(!cell.value.hasValue)
        let rebuilt = cell.value.resolve(step: makeStep()) {
            builds.increment()
            return Item(2)
        }
        #expect((rebuilt as? Item)?.number == 2 && builds.count == 2)
    }

    @Test(
        "with configure:, waiters get the instance only after configure: has run, and the builder's own calls get it during"
    )
    func configureBeforeWaiters() {
        let callers = 4
        let cell = Unchecked(StandaloneCell().reference)
        let configured = LockedBox<Set<Int>>([])
        let seen = LockedBox<[Bool]>([])
        let reentered = LockedBox<[Bool]>([])
        withWatchdog {
            onThreads(callers) { _ in
                let item = cell.value.resolve(step: makeStep()) {
                    Item(1)
                } configure: { item in
                    // The builder's own call, as from a `configure:` cycle, gets the instance being
                    // configured; the others are still asleep.
                    let again = cell.value.resolve(step: makeStep()) { Item(2) }
                    reentered.withLock { $0.append(again === item) }
                    waitUntil { cell.value.waiterCount == callers - 1 }
                    configured.withLock { _ = $0.insert((item as! Item).number) }
                }
                seen.withLock { $0.append(configured.withLock { $0.contains((item as! Item).number) }) }
            }
        }
        #expect(seen.withLock { $0 } == Array(repeating: true, count: callers))
        #expect(reentered.withLock { $0 } == [true])
        #expect(cell.value.readyValue.number == 1)
    }

    @Test(
        "a configure: that throws abandons and releases its instance, gives waiters its error, and the next call builds again"
    )
    func configureThrows() {
        let cell = Unchecked(StandaloneCell().reference)
        let failure = TestFailure(3)
        let probe = LockedBox(WeakItem())
        let caught = LockedBox<[ObjectIdentifier]>([])
        withWatchdog {
            onThreads(2) { _ in
                do throws(TestFailure) {
                    _ = try cell.value.resolve(step: makeStep()) { () throws(TestFailure) -> Item in
                        let item = Item(1)
                        probe.withLock { $0.item = item }
                        return item
                    } configure: { (_: AnyObject) throws(TestFailure) in
                        waitUntil { cell.value.waiterCount == 1 }
                        throw failure
                    }
                } catch {
                    caught.withLock { $0.append(ObjectIdentifier(error)) }
                }
            }
        }
        #expect(caught.withLock { $0 } == [ObjectIdentifier(failure), ObjectIdentifier(failure)])
        #expect(probe.withLock { $0.item } == nil, "the abandoned instance must be released")
        #expect(!cell.value.hasValue && !cell.value.isBuilding)
        let rebuilt = cell.value.resolve(step: makeStep()) { Item(2) }
        #expect((rebuilt as? Item)?.number == 2)
    }

    @Test(
        "a cell keeps its instance as its provider's strategy says, and releasing its host releases it",
        arguments: ObjectCellKind.allCases)
    func hostsReleaseTheirInstances(kind: ObjectCellKind) {
        var released = WeakItem()
        var host: AnyObject? = Self.host(of: kind, resolving: &released)
        #expect(
            (released.item != nil) == kind.keepsStrongly,
            "a strong cell holds its instance; a weak one does not")
        withExtendedLifetime(host) {}
        host = nil
        #expect(released.item == nil)
    }

    /// The host of a cell of `kind` that resolved an item, which `released` tracks and nothing else
    /// holds once this returns.
    private static func host(of kind: ObjectCellKind, resolving released: inout WeakItem) -> AnyObject {
        let item = Item(1)
        released.item = item
        let object: AnyObject = item
        let host: any CellHost
        let cell: CellReference
        switch kind {
        case .standalone:
            let standalone = StandaloneCell()
            (host, cell) = (standalone, standalone.reference)
        case .single, .weak:
            let table = TableHost()
            (host, cell) = (table, table.reference(cellKey(owner: table)))
        }
        let resolved = cell.resolve(step: makeStep(strategy: kind.strategy)) { object }
        #expect(ObjectIdentifier(resolved) == ObjectIdentifier(item))
        return host
    }

    @Test("waking an agent to recheck resumes only that agent's waiters")
    func wakeToRecheck() {
        let cell = StandaloneCell()
        let key = cell.reference.key
        let builder = BuildAgent.standalone()
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        let parkers = (0..<3).map { _ in Parker<WaitEvent>() }
        let generation = cell.reference.withMachine { machine, serials -> UInt64? in
            guard
                case .build(let generation) = machine.claim(
                    by: builder, step: makeStep(), serials: &serials)
            else { return nil }
            for (parker, agent) in zip(parkers, [first, second, first]) {
                _ = machine.enqueue(.thread(parker), of: agent, generation: generation, serials: &serials)
            }
            return generation
        }
        guard let generation = generation ?? nil else {
            Issue.record("an empty cell's first claim builds")
            return
        }
        cell.wakeToRecheck(first, at: key)
        #expect(received(by: [parkers[0], parkers[2]]) == [.recheck, .recheck])
        #expect(cell.reference.waiterCount == 1)
        #expect(cell.build(at: key, generation: generation)?.builder === builder)
        #expect(cell.build(at: key, generation: generation &+ 1) == nil)
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a build that asks for its own cell on its thread stops the program with the cycle's path")
    func ownCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let cell = StandaloneCell().reference
            _ = cell.resolve(step: makeStep("itself()")) {
                cell.resolve(step: makeStep("itself()")) { Item() }
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle: Item.itself() -> Item.itself()"), "\(message)")
    }
    #endif
}

@Suite("The cells of a host that holds many, resolving for threads")
struct HostedCellTests {
    @Test("cells at different keys of one host build and keep their instances independently")
    func cellsAreIndependent() {
        let host = TableHost()
        let (left, right) = (
            host.reference(cellKey(owner: host, line: 1)), host.reference(cellKey(owner: host, line: 2))
        )
        let builds = Counter()
        let outer = left.resolve(step: makeStep("left()")) {
            builds.increment()
            // A build of one cell may resolve another cell of the same host: each has its own build.
            let inner = right.resolve(step: makeStep("right()")) {
                builds.increment()
                return Item(2)
            }
            #expect((inner as? Item)?.number == 2)
            return Item(1)
        }
        #expect((outer as? Item)?.number == 1 && builds.count == 2)
        #expect(left.readyValue === outer)
        #expect(right.readyValue.number == 2)
        #expect(left.reset() === outer)
        #expect(!left.hasValue && right.hasValue, "resetting one cell leaves the other")
    }

    @Test("a host that holds no cell at a key and makes none answers retired: the driver builds nothing")
    func retiredCell() {
        let host = TableHost(makesCells: false)
        let builds = Counter()
        let value = host.reference(cellKey(owner: host)).resolveUnlessRetired(
            in: .current, step: makeStep(),
            build: {
                builds.increment()
                return Item()
            })
        #expect(value == nil)
        #expect(builds.count == 0)
        #expect(host.withTable { $0.entries.isEmpty })
    }

    @Test("a host answers no build, and wakes no one, at a key where it holds no cell")
    func noCell() {
        let host = TableHost()
        let key = cellKey(owner: host)
        #expect(host.build(at: key, generation: 1) == nil)
        host.wakeToRecheck(BuildAgent.standalone(), at: key)
        #expect(host.withTable { $0.entries.isEmpty })
    }
}

@Suite("Waiting until a held build is configured")
struct ConfigurationWaitTests {
    @Test(
        "a resolution that took a held instance waits until the build is configured, and learns what it depends on"
    )
    func waitsUntilConfigured() {
        let cell = StandaloneCell().reference
        let held = HeldBuild(in: cell)
        let dependency = BuildRecord(
            cell: StandaloneCell().reference, generation: 1, outcome: BuildOutcome())
        let outcome = held.waitOnAnotherThread {
            cell.withMachine { machine, _ in
                machine.markConfigured(generation: held.record.generation, dependencies: [dependency])
            }!
        }
        #expect(outcome?.dependencies == [dependency])
        #expect(held.borrower.waitingFor == nil, "the wait is over")
    }

    @Test("a resolution that took a held instance whose build fails learns how it failed")
    func learnsOfFailure() {
        let cell = StandaloneCell().reference
        let held = HeldBuild(in: cell)
        let failure = TestFailure(5)
        let outcome = held.waitOnAnotherThread {
            cell.withMachine { machine, _ in
                machine.fail(generation: held.record.generation, telling: .finished(.failure(failure)))
            }!
        }
        #expect(outcome?.failure?.error as? TestFailure === failure)
        #expect(held.borrower.waitingFor == nil)
    }

    @Test(
        "a build that ended and whose cell its host dropped tells how it ended through its outcome",
        arguments: [false, true])
    func droppedCell(failed: Bool) {
        let host = TableHost()
        let cell = host.reference(cellKey(owner: host))
        let held = HeldBuild(in: cell)
        let generation = held.record.generation
        let waiters = cell.withMachine { machine, _ in
            failed
                ? machine.fail(generation: generation, telling: .finished(.failure(TestFailure(6)))).waiters
                : machine.publish(generation: generation).waiters
        }!
        #expect(waiters.isEmpty)
        host.withTable { table in _ = table.remove(cell.key) }
        let outcome = cell.waitUntilConfigured(held.record, as: held.borrower)
        if failed {
            #expect(outcome.failure?.error is TestFailure)
        } else {
            #expect(outcome.dependencies == [])
        }
    }
}

// MARK: Helpers

/// The cells whose instances a test checks are released with their hosts.
enum ObjectCellKind: CaseIterable {
    /// A handle's cell, which keeps its value strongly.
    case standalone
    /// A `single` provider's cell in a table.
    case single
    /// A `weak` provider's cell in a table, which keeps its value only while someone else does.
    case weak

    var strategy: ProviderStrategy {
        switch self {
        case .standalone: .none
        case .single: .single
        case .weak: .weak
        }
    }

    var keepsStrongly: Bool { self != .weak }
}

/// A build whose instance its builder holds, as until its `configure:` returns, and the agent of a
/// resolution that took that instance.
struct HeldBuild: @unchecked Sendable {
    // Shared with the waiting thread only through `waitOnAnotherThread`, which joins it; the cell
    // synchronizes itself.
    let cell: CellReference
    let record: BuildRecord
    let borrower = BuildAgent.standalone()

    /// Holds an instance for a new build of `cell`.
    init(in cell: CellReference) {
        let builder = BuildAgent.standalone()
        guard case .build(let generation) = cell.host.claim(cell.key, by: builder, step: makeStep()) else {
            preconditionFailure("an empty cell's first claim builds")
        }
        let outcome = cell.withMachine { machine, _ in machine.holdInstance(Item(), generation: generation) }!
        let record = BuildRecord(cell: cell, generation: generation, outcome: outcome)
        (self.cell, self.record) = (cell, record)
    }

    /// What the borrower learns, waiting on another thread until the build is configured, once
    /// `end` ended its wait and returned the action that wakes it: nil if the watchdog fired.
    func waitOnAnotherThread(_ end: @escaping () -> OnceStateMachine.Action) -> ConfigurationOutcome? {
        let outcome = LockedBox<Unchecked<ConfigurationOutcome>?>(nil)
        let end = Unchecked(end)
        withWatchdog {
            let finished = DispatchSemaphore(value: 0)
            Thread {
                let answer = cell.waitUntilConfigured(record, as: borrower)
                outcome.withLock { $0 = Unchecked(answer) }
                finished.signal()
            }.start()
            waitUntil { cell.waiterCount == 1 }
            end.value().run()
            finished.wait()
        }
        return outcome.withLock { $0?.value }
    }
}
