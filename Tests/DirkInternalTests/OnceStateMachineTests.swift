import Dirk
import DirkTestSupport
import Testing

@Suite("The build-once state machine")
struct OnceStateMachineTests {
    private let frame = Frame(
        .provider, strategy: .single, owner: 1, component: 1,
        site: ProviderSite(file: #fileID, line: #line, column: #column, function: #function), type: Int.self,
        subject: Int.self, componentType: Int.self)

    @Test("the first claim builds; the builder's own claim while building is a cycle; others wait")
    func claims() {
        var machine = OnceStateMachine()
        let builder = BuildAgent.standalone()
        let other = BuildAgent.standalone()
        guard case .build(let generation) = machine.claim(by: builder, frame: frame) else {
            Issue.record("the first claim must build")
            return
        }
        guard case .cycle = machine.claim(by: builder, frame: frame) else {
            Issue.record("the builder's second claim must be a cycle")
            return
        }
        guard case .wait(let waited) = machine.claim(by: other, frame: frame) else {
            Issue.record("another agent must wait")
            return
        }
        #expect(waited == generation)
        let seven = Item(7)
        machine.holdInstance(seven, generation: generation)
        guard case .ownInstance(let own) = machine.claim(by: builder, frame: frame), own === seven else {
            Issue.record("the builder sees the instance it holds")
            return
        }
        _ = machine.publish(generation: generation)
        #expect(machine.readyValue === seven)
        machine.checkInvariants()
    }

    // MARK: Claiming

    @Test(
        "claiming an empty cell starts a build of the first generation for the claiming agent",
        arguments: StorageKind.allCases)
    func claimEmpty(storage: StorageKind) {
        claimEmpty(keepsWeakly: storage == .weak)
    }

    private func claimEmpty(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let agent = BuildAgent.standalone()
        #expect(!machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        #expect(machine.claim(by: agent, frame: makeFrame("left()")).summary == .build(generation: 1))
        machine.checkInvariants()
        guard case .building(let build, let frame) = machine.state else {
            Issue.record("a claimed cell must be building")
            return
        }
        #expect(build.builder === agent)
        #expect(build.generation == 1)
        #expect(frame.name == "Item.left()")
        #expect(build.instance == nil)
        #expect(build.waiters.isEmpty)
        #expect(machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        let snapshot = machine.build(ofGeneration: 1)
        #expect(snapshot?.builder === agent)
        #expect(snapshot?.frame.name == "Item.left()")
        #expect(snapshot?.hasInstance == false)
        #expect(machine.build(ofGeneration: 2) == nil)
    }

    @Test(
        "claiming a ready cell gives its value to any agent and starts no build",
        arguments: StorageKind.allCases)
    func claimReady(storage: StorageKind) {
        claimReady(keepsWeakly: storage == .weak)
    }

    private func claimReady(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let builder = BuildAgent.standalone()
        let item = Item()
        machine.buildAndPublish(item, by: builder, frame: frame)
        for agent in [builder, BuildAgent.standalone()] {
            #expect(machine.claim(by: agent, frame: frame).summary == .ready(ObjectIdentifier(item)))
            machine.checkInvariants()
        }
        #expect(!machine.isBuilding)
        #expect(machine.readyValue === item)
        #expect(machine.build(ofGeneration: 1) == nil)
        // The claims of the ready value counted no generation: the next build is the second.
        _ = machine.reset()
        #expect(machine.claim(by: builder, frame: frame).summary == .build(generation: 2))
        withExtendedLifetime(item) {}
    }

    @Test(
        "the builder's own claim is a cycle at the build's step until it holds the instance, then that instance",
        arguments: StorageKind.allCases)
    func claimOwnBuild(storage: StorageKind) {
        claimOwnBuild(keepsWeakly: storage == .weak)
    }

    private func claimOwnBuild(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let builder = BuildAgent.standalone()
        #expect(machine.claim(by: builder, frame: makeFrame("outer()")).summary == .build(generation: 1))
        // The cycle names the step that began the build, not the step that asks again.
        #expect(machine.claim(by: builder, frame: makeFrame("inner()")).summary == .cycle("Item.outer()"))
        let item = Item()
        machine.holdInstance(item, generation: 1)
        machine.checkInvariants()
        #expect(machine.build(ofGeneration: 1)?.hasInstance == true)
        #expect(
            machine.claim(by: builder, frame: makeFrame("inner()")).summary
                == .ownInstance(ObjectIdentifier(item)))
        // Holding the instance does not make it ready: others still wait, and nothing is cached.
        #expect(machine.isBuilding && machine.readyValue == nil)
        machine.checkInvariants()
    }

    @Test(
        "another agent's claim waits for the generation under way, before and after its instance exists",
        arguments: StorageKind.allCases)
    func claimOthersBuild(storage: StorageKind) {
        claimOthersBuild(keepsWeakly: storage == .weak)
    }

    private func claimOthersBuild(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let builder = BuildAgent.standalone()
        let other = BuildAgent.standalone()
        _ = machine.claim(by: builder, frame: frame)
        #expect(machine.claim(by: other, frame: frame).summary == .wait(generation: 1))
        let item = Item()
        machine.holdInstance(item, generation: 1)
        #expect(machine.claim(by: other, frame: frame).summary == .wait(generation: 1))
        // A claim that waits does not enqueue: the waiter does, once it is ready to sleep.
        #expect(machine.waiterIDs.isEmpty)
        machine.checkInvariants()
    }

    @Test(
        "a strong cell keeps its value when no one else holds it; a weak cell whose value is gone builds again",
        arguments: StorageKind.allCases)
    func valueGone(storage: StorageKind) {
        valueGone(keepsWeakly: storage == .weak, kept: storage == .strong)
    }

    private func valueGone(keepsWeakly: Bool, kept: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let agent = BuildAgent.standalone()
        var probe = WeakItem()
        do {
            let item = Item()
            probe.item = item
            machine.buildAndPublish(item, by: agent, frame: frame)
        }
        #expect((probe.item != nil) == kept)
        #expect(machine.hasValue == kept)
        machine.checkInvariants()
        let claim = machine.claim(by: agent, frame: frame).summary
        if kept {
            #expect(claim == .ready(ObjectIdentifier(probe.item!)))
        } else {
            #expect(claim == .build(generation: 2))
            #expect(machine.isBuilding)
        }
        machine.checkInvariants()
    }

    // MARK: Waiting

    @Test(
        "enqueueing adds waiters to the build of the current generation, in order, with growing identifiers",
        arguments: StorageKind.allCases)
    func enqueue(storage: StorageKind) {
        enqueue(keepsWeakly: storage == .weak)
    }

    private func enqueue(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        var ids: [UInt64] = []
        for agent in [first, second, first] {
            guard let id = machine.enqueue(.thread(Parker()), of: agent, generation: 1) else {
                Issue.record("a waiter for the build under way must be enqueued")
                return
            }
            ids.append(id)
            machine.checkInvariants()
        }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(machine.waiterIDs == ids)
        guard case .building(let build, _) = machine.state else {
            Issue.record("a cell with waiters must be building")
            return
        }
        #expect(
            build.waiters.map { ObjectIdentifier($0.agent) }
                == [first, second, first].map(ObjectIdentifier.init))
    }

    @Test(
        "a later build reports its own step, not the step of a build that ended before it",
        arguments: StorageKind.allCases)
    func laterBuildReportsItsOwnStep(storage: StorageKind) {
        laterBuildReportsItsOwnStep(keepsWeakly: storage == .weak)
    }

    private func laterBuildReportsItsOwnStep(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let first = BuildAgent.standalone()
        #expect(machine.claim(by: first, frame: makeFrame("first()")).summary == .build(generation: 1))
        _ = machine.fail(generation: 1, error: TestFailure(0))
        #expect(machine.build(ofGeneration: 1) == nil)
        let second = BuildAgent.standalone()
        #expect(machine.claim(by: second, frame: makeFrame("second()")).summary == .build(generation: 2))
        machine.checkInvariants()
        #expect(machine.claim(by: second, frame: makeFrame("again()")).summary == .cycle("Item.second()"))
        #expect(machine.build(ofGeneration: 2)?.frame.name == "Item.second()")
        #expect(machine.build(ofGeneration: 1) == nil)
        guard case .building(_, let frame) = machine.state else {
            Issue.record("a claimed cell must be building")
            return
        }
        #expect(frame.name == "Item.second()")
    }

    @Test(
        "enqueueing for a stale generation, or with no build under way, adds nothing and says to claim again")
    func enqueueStale() {
        var machine = OnceStateMachine()
        let agent = BuildAgent.standalone()
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 0) == nil)
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 1) == nil)
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        _ = machine.fail(generation: 1, error: TestFailure(0))
        #expect(machine.claim(by: BuildAgent.standalone(), frame: frame).summary == .build(generation: 2))
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 1) == nil)
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 3) == nil)
        #expect(machine.waiterIDs.isEmpty)
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 2) != nil)
        machine.holdInstance(Item(), generation: 2)
        _ = machine.publish(generation: 2)
        #expect(machine.enqueue(.thread(Parker()), of: agent, generation: 2) == nil)
        machine.checkInvariants()
    }

    @Test("dequeueing returns a waiter once and leaves the others")
    func dequeue() {
        var machine = OnceStateMachine()
        let agent = BuildAgent.standalone()
        let parkers = (0..<3).map { _ in Parker<WaitEvent>() }
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        let ids = parkers.compactMap { machine.enqueue(.thread($0), of: agent, generation: 1) }
        #expect(ids.count == 3)
        #expect(machine.dequeue(ids[1])?.parker === parkers[1])
        machine.checkInvariants()
        #expect(machine.dequeue(ids[1]) == nil)
        #expect(machine.dequeue(ids[2] + 100) == nil)
        #expect(machine.waiterIDs == [ids[0], ids[2]])
        machine.holdInstance(Item(), generation: 1)
        let published = machine.publish(generation: 1)
        #expect(parkerIDs(published.waiters) == identities(parkers[0], parkers[2]))
        // Once the build ended, no waiter is left to dequeue: publishing handed them all out.
        #expect(machine.dequeue(ids[0]) == nil)
        machine.checkInvariants()
    }

    @Test("dequeueWaiters(of:) removes every waiter of one agent, in order, and no other")
    func dequeueWaitersOfAgent() {
        var machine = OnceStateMachine()
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        #expect(machine.dequeueWaiters(of: first).isEmpty)
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        let parkers = (0..<4).map { _ in Parker<WaitEvent>() }
        let agents = [first, second, first, second]
        let ids = zip(parkers, agents).compactMap { machine.enqueue(.thread($0), of: $1, generation: 1) }
        let woken = machine.dequeueWaiters(of: first)
        machine.checkInvariants()
        #expect(parkerIDs(woken) == identities(parkers[0], parkers[2]))
        #expect(machine.waiterIDs == [ids[1], ids[3]])
        #expect(machine.dequeueWaiters(of: first).isEmpty)
        #expect(parkerIDs(machine.dequeueWaiters(of: second)) == identities(parkers[1], parkers[3]))
        #expect(machine.waiterIDs.isEmpty)
        #expect(machine.isBuilding)
        machine.checkInvariants()
    }

    @Test(
        "takeInstance gives the held instance of its own generation only, and dequeues only the taker",
        arguments: StorageKind.allCases)
    func takeInstance(storage: StorageKind) {
        takeInstance(keepsWeakly: storage == .weak)
    }

    private func takeInstance(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let agent = BuildAgent.standalone()
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        _ = machine.fail(generation: 1, error: TestFailure(0))
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        guard let taker = machine.enqueue(.thread(Parker()), of: agent, generation: 2),
            let other = machine.enqueue(.thread(Parker()), of: BuildAgent.standalone(), generation: 2)
        else {
            Issue.record("waiters for the build under way must be enqueued")
            return
        }
        #expect(machine.takeInstance(generation: 2, dequeuing: taker) == nil, "no instance is held yet")
        #expect(machine.waiterIDs == [taker, other])
        let item = Item()
        let outcome = machine.holdInstance(item, generation: 2)
        #expect(machine.takeInstance(generation: 1, dequeuing: taker) == nil, "a stale generation")
        #expect(machine.waiterIDs == [taker, other])
        let taken = machine.takeInstance(generation: 2, dequeuing: taker)
        #expect(taken?.instance === item)
        #expect(taken?.outcome === outcome, "the taker shares the build's outcome")
        machine.checkInvariants()
        #expect(machine.waiterIDs == [other])
        #expect(machine.isBuilding && machine.readyValue == nil)
        _ = machine.publish(generation: 2)
        #expect(machine.takeInstance(generation: 2, dequeuing: other) == nil, "the build has ended")
    }

    // MARK: Ending a build

    @Test(
        "publishing a held instance, or completing with one never held, makes the cell ready and returns every waiter, which resume with the value",
        arguments: StorageKind.allCases, [false, true])
    func publish(storage: StorageKind, completes: Bool) {
        publish(keepsWeakly: storage == .weak, completes: completes)
    }

    private func publish(keepsWeakly: Bool, completes: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let builder = BuildAgent.standalone()
        _ = machine.claim(by: builder, frame: frame)
        let parkers = (0..<3).map { _ in Parker<WaitEvent>() }
        for parker in parkers {
            _ = machine.enqueue(.thread(parker), of: BuildAgent.standalone(), generation: 1)
        }
        let item: AnyObject = Item()
        var value = item
        var waiters: [Waiter] = []
        if completes {
            waiters = machine.complete(with: item, generation: 1)
        } else {
            machine.holdInstance(item, generation: 1)
            let published = machine.publish(generation: 1)
            value = published.value
            waiters = published.waiters
        }
        machine.checkInvariants()
        let same = value === item
        #expect(same)
        #expect(parkerIDs(waiters) == identities(parkers))
        #expect(!machine.isBuilding && machine.readyValue === item && machine.hasValue)
        #expect(machine.build(ofGeneration: 1) == nil)
        for waiter in waiters { waiter.resume(with: .finished(.success(value))) }
        #expect(received(by: parkers) == Array(repeating: .value(ObjectIdentifier(item)), count: 3))
    }

    @Test(
        "failing empties the cell, returns every waiter, which resume with the error, and any abandoned instance",
        arguments: StorageKind.allCases, [false, true])
    func fail(storage: StorageKind, heldInstance: Bool) {
        fail(keepsWeakly: storage == .weak, heldInstance: heldInstance)
    }

    private func fail(keepsWeakly: Bool, heldInstance: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        let parkers = (0..<2).map { _ in Parker<WaitEvent>() }
        for parker in parkers {
            _ = machine.enqueue(.thread(parker), of: BuildAgent.standalone(), generation: 1)
        }
        let item = Item()
        if heldInstance { machine.holdInstance(item, generation: 1) }
        let (waiters, abandoned) = machine.fail(generation: 1, error: TestFailure(0))
        machine.checkInvariants()
        #expect(abandoned === (heldInstance ? item : nil))
        #expect(parkerIDs(waiters) == identities(parkers))
        #expect(!machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        guard case .empty = machine.state else {
            Issue.record("a failed build must leave the cell empty")
            return
        }
        let failure = TestFailure(1)
        for waiter in waiters { waiter.resume(with: .finished(.failure(failure))) }
        #expect(received(by: parkers) == Array(repeating: .error(ObjectIdentifier(failure)), count: 2))
        #expect(machine.claim(by: BuildAgent.standalone(), frame: frame).summary == .build(generation: 2))
    }

    // MARK: Resetting

    @Test(
        "reset empties a ready cell and returns what it held, and leaves an empty cell and a build under way alone",
        arguments: StorageKind.allCases)
    func reset(storage: StorageKind) {
        reset(keepsWeakly: storage == .weak)
    }

    private func reset(keepsWeakly: Bool) {
        var machine = OnceStateMachine(keepsWeakly: keepsWeakly)
        let builder = BuildAgent.standalone()
        #expect(machine.reset() == nil)
        _ = machine.claim(by: builder, frame: frame)
        let waiter = machine.enqueue(.thread(Parker()), of: BuildAgent.standalone(), generation: 1)
        let item = Item()
        machine.holdInstance(item, generation: 1)
        #expect(machine.reset() == nil)
        machine.checkInvariants()
        guard case .building(let build, _) = machine.state else {
            Issue.record("reset must leave a build under way")
            return
        }
        #expect(build.generation == 1 && build.builder === builder && build.instance === item)
        #expect(build.waiters.map(\.id) == [waiter])
        _ = machine.publish(generation: 1)
        // A weak cell gives back nothing to release: it held no reference of its own.
        #expect(machine.reset() === (keepsWeakly ? nil : item))
        machine.checkInvariants()
        guard case .empty = machine.state else {
            Issue.record("reset must empty a ready cell")
            return
        }
        #expect(machine.reset() == nil)
        #expect(machine.claim(by: builder, frame: frame).summary == .build(generation: 2))
    }

    @Test(
        "a held build tells a resolution that took its instance what it depends on once configured, and wakes those that waited for that"
    )
    func configuredHeldBuild() {
        var machine = OnceStateMachine()
        let builder = BuildAgent.standalone()
        let borrower = BuildAgent.standalone()
        _ = machine.claim(by: builder, frame: frame)
        let claimant = machine.enqueue(.thread(Parker()), of: BuildAgent.standalone(), generation: 1)
        let item = Item()
        let outcome = machine.holdInstance(item, generation: 1)
        let parker = Parker<WaitEvent>()
        #expect(
            machine.configurationOutcome(
                generation: 1, outcome: outcome, orEnqueue: .thread(parker), of: borrower) == nil
        )
        #expect(machine.waiterCount == 2)
        machine.checkInvariants()
        let dependency = BuildRecord(
            cell: OnceCell.make(), generation: 3, outcome: BuildOutcome())
        let woken = machine.markConfigured(generation: 1, dependencies: [dependency])
        #expect(woken.count == 1, "only the agent waiting for the configuration is woken")
        #expect(machine.waiterCount == 1)
        guard case .building(let build, _) = machine.state else {
            Issue.record("a configured build stays under way until it is published")
            return
        }
        #expect(build.isConfigured && build.instance === item && build.waiters.map(\.id) == [claimant])
        machine.checkInvariants()
        #expect(
            machine.configurationOutcome(
                generation: 1, outcome: outcome, orEnqueue: .thread(Parker()), of: borrower
            )?.dependencies == [dependency])
        #expect(machine.waiterCount == 1, "a configured build enqueues no one")
        #expect(machine.claim(by: builder, frame: frame).summary == .ownInstance(ObjectIdentifier(item)))
        let (value, waiters) = machine.publish(generation: 1)
        #expect(value === item && waiters.count == 1)
        // An ended build was published once all it depends on was configured.
        #expect(
            machine.configurationOutcome(
                generation: 1, outcome: outcome, orEnqueue: .thread(Parker()), of: borrower
            )?.dependencies == [])
        machine.checkInvariants()
    }

    @Test(
        "a held build that fails tells a resolution that saw its instance, even one that asks after it ended, and wakes those that waited"
    )
    func failedHeldBuild() {
        var machine = OnceStateMachine()
        let borrower = BuildAgent.standalone()
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        let outcome = machine.holdInstance(Item(), generation: 1)
        #expect(
            machine.configurationOutcome(
                generation: 1, outcome: outcome, orEnqueue: .thread(Parker()), of: borrower) == nil)
        let (waiters, abandoned) = machine.fail(generation: 1, error: TestFailure(1))
        #expect(waiters.count == 1 && abandoned != nil, "the agent waiting for the configuration is woken")
        machine.checkInvariants()
        let answer = machine.configurationOutcome(
            generation: 1, outcome: outcome, orEnqueue: .thread(Parker()), of: borrower)
        #expect(
            answer?.failure?.error is TestFailure,
            "asked after the build ended, the outcome still says it failed")
        #expect(answer?.failure?.frame.isSame(as: frame) == true, "the failure names the step that built")
        #expect(machine.waiterCount == 0)
        // A later build of the same cell has an outcome of its own.
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        let next = machine.holdInstance(Item(), generation: 2)
        #expect(next !== outcome && next.failure == nil)
        _ = machine.publish(generation: 2)
        #expect(
            machine.configurationOutcome(
                generation: 2, outcome: next, orEnqueue: .thread(Parker()), of: borrower
            )?.dependencies == [])
        machine.checkInvariants()
    }

    @Test("a build that fails before it holds an instance leaves no outcome to share")
    func failureWithoutInstance() {
        var machine = OnceStateMachine()
        _ = machine.claim(by: BuildAgent.standalone(), frame: frame)
        guard case .building(let build, _) = machine.state else {
            Issue.record("a claimed cell builds")
            return
        }
        #expect(build.outcome == nil)
        _ = machine.fail(generation: 1, error: TestFailure(1))
        machine.checkInvariants()
    }

    @Test("retiring leaves a build under way alone, and empties a ready or empty cell for good")
    func retire() {
        var machine = OnceStateMachine()
        let builder = BuildAgent.standalone()
        _ = machine.claim(by: builder, frame: frame)
        let item = Item()
        machine.holdInstance(item, generation: 1)
        let whileBuilding = machine.retireUnlessBuilding()
        #expect(!whileBuilding.isRetired && whileBuilding.dropped == nil)
        #expect(machine.isBuilding && !machine.isRetired)
        _ = machine.publish(generation: 1)
        let ready = machine.retireUnlessBuilding()
        #expect(ready.isRetired && ready.dropped === item)
        machine.checkInvariants()
        #expect(!machine.hasValue && !machine.isBuilding)
        #expect(machine.claim(by: builder, frame: frame).summary == .retired)
        #expect(machine.claim(by: BuildAgent.standalone(), frame: frame).summary == .retired)

        var empty = OnceStateMachine()
        #expect(empty.retireUnlessBuilding().isRetired)
        #expect(empty.claim(by: builder, frame: frame).summary == .retired)
        empty.checkInvariants()
    }

    @Test("generations and waiter identifiers grow with every build, whether it ends in a value or an error")
    func generationsGrow() {
        var machine = OnceStateMachine()
        var generations: [UInt64] = []
        var ids: [UInt64] = []
        for round in 0..<6 {
            guard case .build(let generation) = machine.claim(by: BuildAgent.standalone(), frame: frame)
            else {
                Issue.record("an empty cell must build")
                return
            }
            generations.append(generation)
            ids += (0..<2).compactMap { _ in
                machine.enqueue(.thread(Parker()), of: BuildAgent.standalone(), generation: generation)
            }
            if round.isMultiple(of: 2) {
                machine.holdInstance(Item(round), generation: generation)
                _ = machine.publish(generation: generation)
                #expect(machine.reset().number == round)
            } else {
                _ = machine.fail(generation: generation, error: TestFailure(0))
            }
            machine.checkInvariants()
        }
        #expect(generations == Array(1...6))
        #expect(ids.count == 12 && ids == ids.sorted() && Set(ids).count == 12)
    }

    // MARK: Waiters

    @Test(
        "a waiter resumes with what it is given: a value, an error, a recheck or a cancellation",
        arguments: EventKind.allCases)
    func resume(event: EventKind) async {
        let item = Item()
        let failure = TestFailure(2)
        let sent: WaitEvent =
            switch event {
            case .value: .finished(.success(item))
            case .error: .finished(.failure(failure))
            case .recheck: .recheck
            case .cancelled: .cancelled
            }
        let parker = Parker<WaitEvent>()
        Waiter.thread(parker).resume(with: sent)
        #expect(received(by: [parker]) == [sent.summary])
        let delivery = await withCheckedContinuation { continuation in
            Waiter.task(TaskWaiter(continuation)).resume(with: sent)
        }
        #expect(delivery.event.summary == sent.summary)
        withExtendedLifetime((item, failure)) {}
    }

    enum EventKind: CaseIterable {
        case value, error, recheck, cancelled
    }

    // MARK: Misuse

    @Test(
        "holding, publishing, completing or failing a build that is not under way, or completing a held one, stops the program",
        arguments: MachineMisuse.allCases)
    func misuse(_ misuse: MachineMisuse) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [misuse] in
            misuse.commit()
        }
        #if DEBUG
            // Release builds stop without the message.
            let message = standardError(of: result)
            #expect(message.contains(misuse.message), "\(message)")
        #else
            _ = result
        #endif
    }
}

// MARK: Helpers

/// The storages a cell keeps its value in, for tests that hold for both.
enum StorageKind: CaseIterable {
    case strong, weak
}

/// Ways to drive the state machine that break its contract.
enum MachineMisuse: String, CaseIterable, Codable, Sendable {
    case holdWithNoBuild
    case holdForStaleGeneration
    case publishWithNoInstance
    case publishReadyCell
    case failWithNoBuild
    case failStaleGeneration
    case completeReadyCell
    case completeHeldInstance

    func commit() {
        var machine = OnceStateMachine()
        let agent = BuildAgent.standalone()
        let frame = makeFrame()
        switch self {
        case .holdWithNoBuild:
            machine.holdInstance(Item(), generation: 1)
        case .holdForStaleGeneration:
            _ = machine.claim(by: agent, frame: frame)
            machine.holdInstance(Item(), generation: 2)
        case .publishWithNoInstance:
            _ = machine.claim(by: agent, frame: frame)
            _ = machine.publish(generation: 1)
        case .publishReadyCell:
            machine.buildAndPublish(Item(), by: agent, frame: frame)
            _ = machine.publish(generation: 1)
        case .failWithNoBuild:
            _ = machine.fail(generation: 1, error: TestFailure(0))
        case .failStaleGeneration:
            _ = machine.claim(by: agent, frame: frame)
            _ = machine.fail(generation: 2, error: TestFailure(0))
        case .completeReadyCell:
            machine.buildAndPublish(Item(), by: agent, frame: frame)
            _ = machine.complete(with: Item(), generation: 1)
        case .completeHeldInstance:
            _ = machine.claim(by: agent, frame: frame)
            machine.holdInstance(Item(), generation: 1)
            _ = machine.complete(with: Item(), generation: 1)
        }
    }

    var message: String {
        switch self {
        case .holdWithNoBuild, .holdForStaleGeneration:
            "Dirk internal error: an instance was held for a build that is not under way"
        case .publishWithNoInstance:
            "Dirk internal error: a build was published before its instance was held"
        case .publishReadyCell:
            "Dirk internal error: a build was published that is not under way"
        case .failWithNoBuild, .failStaleGeneration:
            "Dirk internal error: a build failed that is not under way"
        case .completeReadyCell:
            "Dirk internal error: a build was completed that is not under way"
        case .completeHeldInstance:
            "Dirk internal error: a held instance was completed"
        }
    }
}

/// A claim as a comparable summary: instances by identity, steps by name.
enum ClaimSummary: Equatable {
    case ready(ObjectIdentifier)
    case build(generation: UInt64)
    case ownInstance(ObjectIdentifier)
    case cycle(String)
    case wait(generation: UInt64)
    case retired
}

extension OnceStateMachine.Claim {
    var summary: ClaimSummary {
        switch self {
        case .ready(let value): .ready(ObjectIdentifier(value))
        case .build(let generation): .build(generation: generation)
        case .ownInstance(let value): .ownInstance(ObjectIdentifier(value))
        case .cycle(let frame): .cycle(frame.name)
        case .wait(let generation): .wait(generation: generation)
        case .retired: .retired
        }
    }
}

/// What a waiter was woken with, as a comparable summary: values and errors by identity.
enum EventSummary: Equatable {
    case value(ObjectIdentifier)
    case error(ObjectIdentifier)
    case otherError
    case recheck
    case cancelled
}

extension WaitEvent {
    var summary: EventSummary {
        switch self {
        case .finished(.success(let value)): .value(ObjectIdentifier(value))
        case .finished(.failure(let error as TestFailure)): .error(ObjectIdentifier(error))
        case .finished(.failure): .otherError
        case .recheck: .recheck
        case .cancelled: .cancelled
        }
    }
}

extension Waiter {
    /// The parker of a waiting thread.
    var parker: Parker<WaitEvent>? {
        if case .thread(let parker) = self { return parker }
        return nil
    }
}

/// The identities of the parkers of the waiting threads among `waiters`.
func parkerIDs(_ waiters: [Waiter]) -> [ObjectIdentifier] {
    waiters.compactMap { $0.parker.map(ObjectIdentifier.init) }
}

extension OnceStateMachine {
    /// The identifiers of the waiters of the build under way, in order.
    var waiterIDs: [UInt64] {
        guard case .building(let build, _) = state else { return [] }
        return build.waiters.map(\.id)
    }

    /// Builds `value` as the next generation and makes it ready.
    mutating func buildAndPublish(_ value: Value, by agent: BuildAgent, frame: Frame) {
        guard case .build(let generation) = claim(by: agent, frame: frame) else {
            Issue.record("the cell must be empty to build")
            return
        }
        holdInstance(value, generation: generation)
        _ = publish(generation: generation)
    }
}

/// What each parker was given, received on another thread under a watchdog, since `receive()` sleeps
/// until something is delivered.
func received(by parkers: [Parker<WaitEvent>]) -> [EventSummary] {
    let events = DirkTestSupport.Locked<[EventSummary]>([])
    withWatchdog {
        let summaries = parkers.map { $0.receive().summary }
        events.withLock { $0 = summaries }
    }
    return events.withLock { $0 }
}
