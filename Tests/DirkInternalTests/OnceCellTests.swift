import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("A build-once cell resolving for threads")
struct OnceCellTests {
    private typealias Cell = OnceCell

    @Test("one build serves every caller when many threads ask at once")
    func oneBuildForConcurrentCallers() {
        for round in 0..<20 {
            let cell = Unchecked(Cell.make())
            let builds = Counter()
            let results = DirkTestSupport.Locked<[ObjectIdentifier]>([])
            // A waiter never woken would hang: the watchdog ends the test instead.
            withWatchdog {
                DispatchQueue.concurrentPerform(iterations: 16) { _ in
                    let item = cell.value.resolve(frame: makeFrame()) {
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
        }
    }

    @Test("callers that arrive while a build runs wait for it and all get its instance")
    func waitersGetTheInstance() {
        let callers = 8
        let cell = Unchecked(Cell.make())
        let builds = Counter()
        let results = DirkTestSupport.Locked<[ObjectIdentifier]>([])
        withWatchdog {
            onThreads(callers) { _ in
                let item = cell.value.resolve(frame: makeFrame()) {
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

    @Test("a build that throws runs once and gives every waiting caller the very same error")
    func failureReachesEveryWaiter() {
        let callers = 8
        let cell = Unchecked(Cell.make())
        let builds = Counter()
        let failure = TestFailure(1)
        let caught = DirkTestSupport.Locked<[ObjectIdentifier?]>([])
        withWatchdog {
            onThreads(callers) { _ in
                do throws(TestFailure) {
                    _ = try cell.value.resolve(frame: makeFrame()) { () throws(TestFailure) -> Item in
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
        let cell = Cell.make()
        let builds = Counter()
        #expect(throws: TestFailure.self) {
            _ = try cell.resolve(frame: makeFrame()) { () throws(TestFailure) -> Item in
                builds.increment()
                throw TestFailure(1)
            }
        }
        #expect(!cell.hasValue)
        let built = cell.resolve(frame: makeFrame()) {
            builds.increment()
            return Item(2)
        }
        let found = cell.resolve(frame: makeFrame()) {
            builds.increment()
            return Item(3)
        }
        #expect(builds.count == 2)
        #expect((built as? Item)?.number == 2 && found === built)
    }

    @Test("reset() during a build leaves it to finish: its instance is cached and reaches its waiters")
    func resetDuringBuild() {
        let cell = Unchecked(Cell.make())
        let builds = Counter()
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let results = DirkTestSupport.Locked<[ObjectIdentifier]>([])
        let duringBuild = DirkTestSupport.Locked<(reset: AnyObject?, isBuilding: Bool, waiters: Int)?>(nil)
        withWatchdog {
            let finished = DispatchGroup()
            for _ in 0..<2 {
                DispatchQueue.global().async(group: finished) {
                    let item = cell.value.resolve(frame: makeFrame()) {
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
        let rebuilt = cell.value.resolve(frame: makeFrame()) {
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
        let cell = Unchecked(Cell.make())
        let configured = DirkTestSupport.Locked<Set<Int>>([])
        let seen = DirkTestSupport.Locked<[Bool]>([])
        let reentered = DirkTestSupport.Locked<[Bool]>([])
        withWatchdog {
            onThreads(callers) { _ in
                let item = cell.value.resolve(frame: makeFrame()) {
                    Item(1)
                } configure: { item in
                    // The builder's own call, as from a `configure:` cycle, gets the instance being
                    // configured; the others are still asleep.
                    let again = cell.value.resolve(frame: makeFrame()) { Item(2) }
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
        let cell = Unchecked(Cell.make())
        let failure = TestFailure(3)
        let probe = DirkTestSupport.Locked(WeakItem())
        let caught = DirkTestSupport.Locked<[ObjectIdentifier]>([])
        withWatchdog {
            onThreads(2) { _ in
                do throws(TestFailure) {
                    _ = try cell.value.resolve(frame: makeFrame()) { () throws(TestFailure) -> Item in
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
        let rebuilt = cell.value.resolve(frame: makeFrame()) { Item(2) }
        #expect((rebuilt as? Item)?.number == 2)
    }

    @Test(
        "a provider's object cell keeps its instance as its storage says, and releasing the cell releases it",
        arguments: [true, false])
    func objectCellsReleaseTheirInstances(strong: Bool) {
        var released = WeakItem()
        var cell: AnyObject? = Self.objectCell(strong: strong, resolving: &released)
        #expect((released.item != nil) == strong, "a strong cell holds its instance; a weak one does not")
        withExtendedLifetime(cell) {}
        cell = nil
        #expect(released.item == nil)
    }

    /// A strong or weak object cell that resolved an item, which `released` tracks and nothing
    /// else holds once this returns.
    private static func objectCell(strong: Bool, resolving released: inout WeakItem) -> AnyObject {
        let item = Item(1)
        released.item = item
        let object: AnyObject = item
        let cell: AnyObject
        let resolved: AnyObject
        if strong {
            let strongCell = OnceCell.make()
            resolved = strongCell.resolve(frame: makeFrame()) { object }
            cell = strongCell
        } else {
            let weakCell = OnceCell.make(keepsWeakly: true)
            resolved = weakCell.resolve(frame: makeFrame()) { object }
            cell = weakCell
        }
        #expect(ObjectIdentifier(resolved) == ObjectIdentifier(item))
        return cell
    }

    @Test("waking an agent to recheck resumes only that agent's waiters")
    func wakeToRecheck() {
        let cell = Cell.make()
        let builder = BuildAgent.standalone()
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        let parkers = (0..<3).map { _ in Parker<WaitEvent>() }
        cell.withMachine { machine in
            _ = machine.claim(by: builder, frame: makeFrame())
            _ = machine.enqueue(.thread(parkers[0]), of: first, generation: 1)
            _ = machine.enqueue(.thread(parkers[1]), of: second, generation: 1)
            _ = machine.enqueue(.thread(parkers[2]), of: first, generation: 1)
        }
        cell.wakeToRecheck(first)
        #expect(received(by: [parkers[0], parkers[2]]) == [.recheck, .recheck])
        #expect(cell.waiterCount == 1)
        #expect(cell.build(ofGeneration: 1)?.builder === builder)
        #expect(cell.build(ofGeneration: 2) == nil)
    }

    @Test("a build that asks for its own cell on its thread stops the program with the cycle's path")
    func ownCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let cell = Cell.make()
            _ = cell.resolve(frame: makeFrame("itself()")) {
                cell.resolve(frame: makeFrame("itself()")) { Item() }
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle: Item.itself() -> Item.itself()"), "\(message)")
    }
}

extension OnceCell {
    /// How many agents wait for the build under way; zero when none is.
    var waiterCount: Int {
        withMachine { machine in
            guard case .building(let build, _) = machine.state else { return 0 }
            return build.waiters.count
        }
    }

    /// The value for the calling thread, built by `build` if needed.
    func resolve<Failure: Error>(
        frame: Frame, build: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try resolve(
            in: .current, frame: frame, build: build, configures: false, configure: { _ throws(Failure) in })
    }

    /// The value for the calling thread, built by `build` and completed by `configure` if needed.
    func resolve<Failure: Error>(
        frame: Frame, build: () throws(Failure) -> Value, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try resolve(in: .current, frame: frame, build: build, configures: true, configure: configure)
    }
}
