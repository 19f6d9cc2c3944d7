import Dirk
import DirkTestSupport
import Testing

@Suite("The build-once state machine")
struct OnceStateMachineTests {
    private let step = Step(
        .provider, strategy: .single, owner: 1, component: 1,
        site: ProviderSite(file: #fileID, line: #line, column: #column, function: #function), type: Int.self,
        subject: Int.self, componentType: Int.self)

    @Test("the first claim builds; the builder's own claim while building is a cycle; others wait")
    func claims() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        let other = BuildAgent.standalone()
        guard case .build(let generation) = machine.claim(by: builder, step: step, serials: &serials) else {
            Issue.record("the first claim must build")
            return
        }
        guard case .cycle = machine.claim(by: builder, step: step, serials: &serials) else {
            Issue.record("the builder's second claim must be a cycle")
            return
        }
        guard case .wait(let waited) = machine.claim(by: other, step: step, serials: &serials) else {
            Issue.record("another agent must wait")
            return
        }
        #expect(waited == generation)
        let seven = Item(7)
        machine.holdInstance(seven, generation: generation)
        guard case .ownInstance(let own) = machine.claim(by: builder, step: step, serials: &serials),
            own === seven
        else {
            Issue.record("the builder sees the instance it holds")
            return
        }
        _ = machine.publish(generation: generation)
        #expect(machine.readyValue === seven)
        machine.checkInvariants()
    }

    // MARK: Claiming

    @Test(
        "claiming an empty cell starts a build, of a generation the host numbers, for the claiming agent",
        arguments: StorageKind.allCases)
    func claimEmpty(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let agent = BuildAgent.standalone()
        #expect(machine.strategy == storage.strategy)
        #expect(!machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        let before = serials
        guard
            let generation = machine.claim(by: agent, step: makeStep("left()"), serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        #expect(serials != before, "the build took a number from the host's serials")
        machine.checkInvariants()
        guard let build = machine.build, let step = machine.buildStep else {
            Issue.record("a claimed cell must be building")
            return
        }
        #expect(build.builder === agent)
        #expect(build.generation == generation)
        #expect(step.name == "Item.left()")
        #expect(build.held == nil)
        #expect(build.waiters.isEmpty)
        #expect(machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        let snapshot = machine.build(ofGeneration: generation)
        #expect(snapshot?.builder === agent)
        #expect(snapshot?.step.name == "Item.left()")
        #expect(snapshot?.hasInstance == false)
        #expect(machine.build(ofGeneration: generation &+ 1) == nil)
        #expect(machine.build(ofGeneration: generation &- 1) == nil)
    }

    @Test(
        "claiming a ready cell gives its value to any agent and starts no build",
        arguments: StorageKind.allCases)
    func claimReady(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        let item = Item()
        let generation = machine.buildAndPublish(item, by: builder, step: step, serials: &serials)
        for agent in [builder, BuildAgent.standalone()] {
            #expect(
                machine.claim(by: agent, step: step, serials: &serials).summary
                    == .ready(ObjectIdentifier(item)))
            machine.checkInvariants()
        }
        #expect(!machine.isBuilding)
        #expect(machine.readyValue === item)
        #expect(machine.build(ofGeneration: generation) == nil)
        // Once reset, the cell builds again, a generation of its own.
        _ = machine.reset()
        let next = machine.claim(by: builder, step: step, serials: &serials).generation
        #expect(next.map { $0 > generation } == true, "a later build's generation is greater")
        withExtendedLifetime(item) {}
    }

    @Test(
        "the builder's own claim is a cycle at the build's step until it holds the instance, then that instance",
        arguments: StorageKind.allCases)
    func claimOwnBuild(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        guard
            let generation = machine.claim(by: builder, step: makeStep("outer()"), serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        // The cycle names the build, whose step (the one that began it, not the one that asks again)
        // begins the cycle's path.
        #expect(
            machine.claim(by: builder, step: makeStep("inner()"), serials: &serials).summary
                == .cycle(generation: generation))
        #expect(machine.build(ofGeneration: generation)?.step.name == "Item.outer()")
        let item = Item()
        machine.holdInstance(item, generation: generation)
        machine.checkInvariants()
        #expect(machine.build(ofGeneration: generation)?.hasInstance == true)
        #expect(
            machine.claim(by: builder, step: makeStep("inner()"), serials: &serials).summary
                == .ownInstance(ObjectIdentifier(item)))
        // Holding the instance does not make it ready: others still wait, and nothing is cached.
        #expect(machine.isBuilding && machine.readyValue == nil)
        machine.checkInvariants()
    }

    @Test(
        "another agent's claim waits for the generation under way, before and after its instance exists",
        arguments: StorageKind.allCases)
    func claimOthersBuild(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        let other = BuildAgent.standalone()
        guard let generation = machine.claim(by: builder, step: step, serials: &serials).generation else {
            Issue.record("claiming an empty cell must build")
            return
        }
        #expect(
            machine.claim(by: other, step: step, serials: &serials).summary == .wait(generation: generation)
        )
        let item = Item()
        machine.holdInstance(item, generation: generation)
        #expect(
            machine.claim(by: other, step: step, serials: &serials).summary == .wait(generation: generation)
        )
        // A claim that waits does not enqueue: the waiter does, once it is ready to sleep.
        #expect(machine.waiterIDs.isEmpty)
        machine.checkInvariants()
    }

    @Test(
        "a strong cell keeps its value when no one else holds it; a weak cell whose value is gone builds again",
        arguments: StorageKind.allCases)
    func valueGone(storage: StorageKind) {
        let kept = storage == .strong
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let agent = BuildAgent.standalone()
        var probe = WeakItem()
        var first: UInt64 = 0
        do {
            let item = Item()
            probe.item = item
            first = machine.buildAndPublish(item, by: agent, step: step, serials: &serials)
        }
        #expect((probe.item != nil) == kept)
        #expect(machine.hasValue == kept)
        machine.checkInvariants()
        let claim = machine.claim(by: agent, step: step, serials: &serials)
        if kept {
            #expect(claim.summary == .ready(ObjectIdentifier(probe.item!)))
        } else {
            #expect(claim.generation.map { $0 != first } == true, "a new build, of a new generation")
            #expect(machine.isBuilding)
        }
        machine.checkInvariants()
    }

    @Test("a cell made with no strategy, as a module's or a handle's, keeps its value strongly")
    func defaultStrategy() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        #expect(machine.strategy == ProviderStrategy.none)
        var probe = WeakItem()
        do {
            let item = Item()
            probe.item = item
            machine.buildAndPublish(item, by: BuildAgent.standalone(), step: step, serials: &serials)
        }
        #expect(probe.item != nil && machine.readyValue === probe.item)
        #expect(machine.reset() === probe.item)
    }

    // MARK: Numbering

    @Test(
        "the cells of one host never share a generation, even a cell the host dropped and made anew, whose old waiters claim again"
    )
    func hostNumbersBuilds() {
        var serials: UInt64 = 0
        var first = OnceStateMachine()
        var second = OnceStateMachine()
        let agent = BuildAgent.standalone()
        var generations: [UInt64] = []
        for round in 0..<3 {
            for index in 0..<2 {
                let claim =
                    index == 0
                    ? first.claim(by: agent, step: step, serials: &serials)
                    : second.claim(by: agent, step: step, serials: &serials)
                guard let generation = claim.generation else {
                    Issue.record("an empty cell must build")
                    return
                }
                generations.append(generation)
                if index == 0 {
                    _ = first.fail(generation: generation, telling: .finished(.failure(TestFailure(round))))
                } else {
                    _ = second.fail(generation: generation, telling: .finished(.failure(TestFailure(round))))
                }
            }
        }
        #expect(Set(generations).count == generations.count)
        // A cell the host dropped while a build was under way, made anew at the same key: the
        // waiter of the dropped build finds no build of its generation there, and claims again.
        _ = first.claim(by: agent, step: step, serials: &serials)
        guard let dropped = first.build else {
            Issue.record("a claimed cell must be building")
            return
        }
        var remade = OnceStateMachine()
        guard let generation = remade.claim(by: agent, step: step, serials: &serials).generation else {
            Issue.record("an empty cell must build")
            return
        }
        #expect(generation != dropped.generation && !generations.contains(generation))
        #expect(remade.build(ofGeneration: dropped.generation) == nil)
        #expect(
            remade.enqueue(
                .thread(.init()), of: BuildAgent.standalone(), generation: dropped.generation,
                serials: &serials)
                == nil)
    }

    // MARK: Waiting

    @Test(
        "enqueueing adds waiters to the build of the current generation, in order, with growing identifiers",
        arguments: StorageKind.allCases)
    func enqueue(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        var ids: [UInt64] = []
        for agent in [first, second, first] {
            guard
                let id = machine.enqueue(
                    .thread(.init()), of: agent, generation: generation, serials: &serials)
            else {
                Issue.record("a waiter for the build under way must be enqueued")
                return
            }
            ids.append(id)
            machine.checkInvariants()
        }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(machine.waiterIDs == ids)
        guard let build = machine.build else {
            Issue.record("a cell with waiters must be building")
            return
        }
        #expect(
            build.waiters.map { ObjectIdentifier($0.agent) }
                == [first, second, first].map(ObjectIdentifier.init))
        #expect(build.waiters.allSatisfy { !$0.forConfiguration })
    }

    @Test(
        "a later build reports its own step, not the step of a build that ended before it",
        arguments: StorageKind.allCases)
    func laterBuildReportsItsOwnStep(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let first = BuildAgent.standalone()
        guard
            let firstGeneration = machine.claim(by: first, step: makeStep("first()"), serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        _ = machine.fail(generation: firstGeneration, telling: .finished(.failure(TestFailure(0))))
        #expect(machine.build(ofGeneration: firstGeneration) == nil)
        let second = BuildAgent.standalone()
        guard
            let secondGeneration = machine.claim(by: second, step: makeStep("second()"), serials: &serials)
                .generation
        else {
            Issue.record("claiming a cell whose build failed must build")
            return
        }
        #expect(secondGeneration != firstGeneration)
        machine.checkInvariants()
        #expect(
            machine.claim(by: second, step: makeStep("again()"), serials: &serials).summary
                == .cycle(generation: secondGeneration))
        #expect(machine.build(ofGeneration: secondGeneration)?.step.name == "Item.second()")
        #expect(machine.build(ofGeneration: firstGeneration) == nil)
        guard machine.build != nil, let step = machine.buildStep else {
            Issue.record("a claimed cell must be building")
            return
        }
        #expect(step.name == "Item.second()")
    }

    @Test(
        "enqueueing for a stale generation, or with no build under way, adds nothing and says to claim again")
    func enqueueStale() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        let agent = BuildAgent.standalone()
        #expect(machine.enqueue(.thread(.init()), of: agent, generation: 0, serials: &serials) == nil)
        #expect(machine.enqueue(.thread(.init()), of: agent, generation: 1, serials: &serials) == nil)
        guard
            let first = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials).generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        _ = machine.fail(generation: first, telling: .finished(.failure(TestFailure(0))))
        guard
            let second = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming a cell whose build failed must build")
            return
        }
        #expect(machine.enqueue(.thread(.init()), of: agent, generation: first, serials: &serials) == nil)
        #expect(
            machine.enqueue(.thread(.init()), of: agent, generation: second &+ 1, serials: &serials) == nil)
        #expect(machine.waiterIDs.isEmpty)
        #expect(machine.enqueue(.thread(.init()), of: agent, generation: second, serials: &serials) != nil)
        machine.holdInstance(Item(), generation: second)
        _ = machine.publish(generation: second)
        #expect(machine.enqueue(.thread(.init()), of: agent, generation: second, serials: &serials) == nil)
        machine.checkInvariants()
    }

    @Test(
        "dequeueWaiters(of:telling:) removes every waiter of one agent, in order, and no other, to resume with the event"
    )
    func dequeueWaitersOfAgent() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        let first = BuildAgent.standalone()
        let second = BuildAgent.standalone()
        #expect(machine.dequeueWaiters(of: first, telling: .recheck).waiters.isEmpty)
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let parkers = (0..<4).map { _ in Parker<WaitEvent>() }
        let agents = [first, second, first, second]
        let ids = zip(parkers, agents).compactMap {
            machine.enqueue(.thread($0), of: $1, generation: generation, serials: &serials)
        }
        let woken = machine.dequeueWaiters(of: first, telling: .cancelled)
        machine.checkInvariants()
        #expect(parkerIDs(woken.waiters) == identities(parkers[0], parkers[2]))
        if case .resume(_, .cancelled, _) = woken {
        } else {
            Issue.record("the waiters must be told they were cancelled")
        }
        #expect(machine.waiterIDs == [ids[1], ids[3]])
        #expect(machine.dequeueWaiters(of: first, telling: .recheck).waiters.isEmpty)
        #expect(
            parkerIDs(machine.dequeueWaiters(of: second, telling: .recheck).waiters)
                == identities(parkers[1], parkers[3]))
        #expect(machine.waiterIDs.isEmpty)
        #expect(machine.isBuilding)
        machine.checkInvariants()
    }

    @Test(
        "takeInstance gives the held instance of its own generation only, and dequeues only the taker",
        arguments: StorageKind.allCases)
    func takeInstance(storage: StorageKind) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let agent = BuildAgent.standalone()
        guard
            let stale = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials).generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        _ = machine.fail(generation: stale, telling: .finished(.failure(TestFailure(0))))
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation,
            let taker = machine.enqueue(
                .thread(.init()), of: agent, generation: generation, serials: &serials),
            let other = machine.enqueue(
                .thread(.init()), of: BuildAgent.standalone(), generation: generation, serials: &serials)
        else {
            Issue.record("waiters for the build under way must be enqueued")
            return
        }
        #expect(
            machine.takeInstance(generation: generation, dequeuing: taker) == nil, "no instance is held yet")
        #expect(machine.waiterIDs == [taker, other])
        let item = Item()
        let outcome = machine.holdInstance(item, generation: generation)
        #expect(machine.takeInstance(generation: stale, dequeuing: taker) == nil, "a stale generation")
        #expect(machine.waiterIDs == [taker, other])
        let taken = machine.takeInstance(generation: generation, dequeuing: taker)
        #expect(taken?.instance === item)
        #expect(taken?.outcome === outcome, "the taker shares the build's outcome")
        machine.checkInvariants()
        #expect(machine.waiterIDs == [other])
        #expect(machine.isBuilding && machine.readyValue == nil)
        _ = machine.publish(generation: generation)
        #expect(machine.takeInstance(generation: generation, dequeuing: other) == nil, "the build has ended")
    }

    // MARK: Ending a build

    @Test(
        "publishing a held instance, or completing with one never held, makes the cell ready and resumes every waiter with the value",
        arguments: StorageKind.allCases, [false, true])
    func publish(storage: StorageKind, completes: Bool) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        guard let generation = machine.claim(by: builder, step: step, serials: &serials).generation else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let parkers = (0..<3).map { _ in Parker<WaitEvent>() }
        for parker in parkers {
            _ = machine.enqueue(
                .thread(parker), of: BuildAgent.standalone(), generation: generation, serials: &serials)
        }
        let item: AnyObject = Item()
        let action: OnceStateMachine.Action
        if completes {
            action = machine.complete(with: item, generation: generation)
        } else {
            machine.holdInstance(item, generation: generation)
            action = machine.publish(generation: generation)
        }
        machine.checkInvariants()
        #expect(parkerIDs(action.waiters) == identities(parkers))
        #expect(!machine.isBuilding && machine.readyValue === item && machine.hasValue)
        #expect(machine.build(ofGeneration: generation) == nil)
        action.run()
        #expect(received(by: parkers) == Array(repeating: .value(ObjectIdentifier(item)), count: 3))
    }

    @Test(
        "failing empties the cell, resumes every waiter with the error, and gives up any abandoned instance",
        arguments: StorageKind.allCases, [false, true])
    func fail(storage: StorageKind, heldInstance: Bool) {
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let parkers = (0..<2).map { _ in Parker<WaitEvent>() }
        for parker in parkers {
            _ = machine.enqueue(
                .thread(parker), of: BuildAgent.standalone(), generation: generation, serials: &serials)
        }
        let item = Item()
        if heldInstance { machine.holdInstance(item, generation: generation) }
        let failure = TestFailure(1)
        let action = machine.fail(generation: generation, telling: .finished(.failure(failure)))
        machine.checkInvariants()
        guard case .resume(let waiters, _, let released) = action else {
            Issue.record("a failed build must resume its waiters")
            return
        }
        #expect(released.instance === (heldInstance ? item : nil))
        #expect(parkerIDs(waiters) == identities(parkers))
        #expect(!machine.isBuilding && !machine.hasValue && machine.readyValue == nil)
        guard machine.build == nil, machine.readyValue == nil else {
            Issue.record("a failed build must leave the cell empty")
            return
        }
        action.run()
        #expect(received(by: parkers) == Array(repeating: .error(ObjectIdentifier(failure)), count: 2))
        let next = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials).generation
        #expect(next.map { $0 > generation } == true, "the next claim builds a later generation")
    }

    // MARK: Resetting

    @Test(
        "reset empties a ready cell and returns what it held, and leaves an empty cell and a build under way alone",
        arguments: StorageKind.allCases)
    func reset(storage: StorageKind) {
        let keepsWeakly = storage == .weak
        var machine = OnceStateMachine(strategy: storage.strategy)
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        #expect(machine.reset() == nil)
        guard let generation = machine.claim(by: builder, step: step, serials: &serials).generation else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let waiter = machine.enqueue(
            .thread(.init()), of: BuildAgent.standalone(), generation: generation, serials: &serials)
        let item = Item()
        machine.holdInstance(item, generation: generation)
        #expect(machine.reset() == nil)
        machine.checkInvariants()
        guard let build = machine.build else {
            Issue.record("reset must leave a build under way")
            return
        }
        #expect(build.generation == generation && build.builder === builder && build.held?.instance === item)
        #expect(build.waiters.map(\.id) == [waiter])
        _ = machine.publish(generation: generation)
        // A weak cell gives back nothing to release: it held no reference of its own.
        #expect(machine.reset() === (keepsWeakly ? nil : item))
        machine.checkInvariants()
        guard machine.build == nil, machine.readyValue == nil else {
            Issue.record("reset must empty a ready cell")
            return
        }
        #expect(machine.reset() == nil)
        let next = machine.claim(by: builder, step: step, serials: &serials).generation
        #expect(next.map { $0 > generation } == true, "a reset cell builds again, a later generation")
    }

    @Test(
        "a held build tells a resolution that took its instance what it depends on once configured, and wakes those that waited for that"
    )
    func configuredHeldBuild() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        let builder = BuildAgent.standalone()
        let borrower = BuildAgent.standalone()
        guard let generation = machine.claim(by: builder, step: step, serials: &serials).generation else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let claimant = machine.enqueue(
            .thread(.init()), of: BuildAgent.standalone(), generation: generation, serials: &serials)
        let item = Item()
        let outcome = machine.holdInstance(item, generation: generation)
        let parker = Parker<WaitEvent>()
        #expect(
            machine.configurationOutcome(
                generation: generation, outcome: outcome, orEnqueue: .thread(parker), of: borrower,
                serials: &serials) == nil
        )
        #expect(machine.waiterCount == 2)
        guard let waiting = machine.build else {
            Issue.record("a held build stays under way until it is published")
            return
        }
        #expect(waiting.waiters.map(\.forConfiguration) == [false, true])
        #expect(Set(waiting.waiters.map(\.id)).count == 2, "waiters for the configuration are numbered too")
        machine.checkInvariants()
        let dependency = BuildRecord(
            cell: StandaloneCell().reference, generation: 3, outcome: BuildOutcome())
        let woken = machine.markConfigured(generation: generation, dependencies: [dependency])
        #expect(woken.waiters.count == 1, "only the agent waiting for the configuration is woken")
        #expect(parkerIDs(woken.waiters) == identities(parker))
        if case .resume(_, .recheck, _) = woken {
        } else {
            Issue.record("a configured build's waiters look again")
        }
        #expect(machine.waiterCount == 1)
        guard let build = machine.build else {
            Issue.record("a configured build stays under way until it is published")
            return
        }
        #expect(
            build.held?.isConfigured == true && build.held?.instance === item
                && build.waiters.map(\.id) == [claimant])
        machine.checkInvariants()
        #expect(
            machine.configurationOutcome(
                generation: generation, outcome: outcome, orEnqueue: .thread(.init()), of: borrower,
                serials: &serials
            )?.dependencies == [dependency])
        #expect(machine.waiterCount == 1, "a configured build enqueues no one")
        #expect(
            machine.claim(by: builder, step: step, serials: &serials).summary
                == .ownInstance(ObjectIdentifier(item))
        )
        let published = machine.publish(generation: generation)
        guard case .resume(let waiters, .finished(.success(let value)), _) = published else {
            Issue.record("publishing resumes the waiters with the instance")
            return
        }
        #expect(value === item && waiters.count == 1)
        // An ended build was published once all it depends on was configured.
        #expect(
            machine.configurationOutcome(
                generation: generation, outcome: outcome, orEnqueue: .thread(.init()), of: borrower,
                serials: &serials
            )?.dependencies == [])
        machine.checkInvariants()
    }

    @Test(
        "a held build that fails tells a resolution that saw its instance, even one that asks after it ended, and wakes those that waited"
    )
    func failedHeldBuild() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        let borrower = BuildAgent.standalone()
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        let outcome = machine.holdInstance(Item(), generation: generation)
        #expect(
            machine.configurationOutcome(
                generation: generation, outcome: outcome, orEnqueue: .thread(.init()), of: borrower,
                serials: &serials) == nil)
        let failed = machine.fail(generation: generation, telling: .finished(.failure(TestFailure(1))))
        guard case .resume(let waiters, _, let released) = failed else {
            Issue.record("a failed build resumes its waiters")
            return
        }
        let abandoned = released.instance
        #expect(waiters.count == 1 && abandoned != nil, "the agent waiting for the configuration is woken")
        machine.checkInvariants()
        let answer = machine.configurationOutcome(
            generation: generation, outcome: outcome, orEnqueue: .thread(.init()), of: borrower,
            serials: &serials)
        #expect(
            answer?.failure?.error is TestFailure,
            "asked after the build ended, the outcome still says it failed")
        #expect(answer?.failure?.step.isSame(as: step) == true, "the failure names the step that built")
        #expect(machine.waiterCount == 0)
        // A later build of the same cell has an outcome of its own.
        guard
            let later = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials).generation
        else {
            Issue.record("claiming a cell whose build failed must build")
            return
        }
        let next = machine.holdInstance(Item(), generation: later)
        #expect(next !== outcome && next.failure == nil)
        _ = machine.publish(generation: later)
        #expect(
            machine.configurationOutcome(
                generation: later, outcome: next, orEnqueue: .thread(.init()), of: borrower, serials: &serials
            )?.dependencies == [])
        machine.checkInvariants()
    }

    @Test("a build that fails before it holds an instance leaves no outcome to share")
    func failureWithoutInstance() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        guard
            let generation = machine.claim(by: BuildAgent.standalone(), step: step, serials: &serials)
                .generation
        else {
            Issue.record("claiming an empty cell must build")
            return
        }
        guard let build = machine.build else {
            Issue.record("a claimed cell builds")
            return
        }
        #expect(build.held == nil)
        _ = machine.fail(generation: generation, telling: .finished(.failure(TestFailure(1))))
        machine.checkInvariants()
    }

    @Test("generations and waiter identifiers grow with every build, whether it ends in a value or an error")
    func generationsGrow() {
        var machine = OnceStateMachine()
        var serials: UInt64 = 0
        var generations: [UInt64] = []
        var ids: [UInt64] = []
        for round in 0..<6 {
            guard
                case .build(let generation) = machine.claim(
                    by: BuildAgent.standalone(), step: step, serials: &serials)
            else {
                Issue.record("an empty cell must build")
                return
            }
            generations.append(generation)
            ids += (0..<2).compactMap { _ in
                machine.enqueue(
                    .thread(.init()), of: BuildAgent.standalone(), generation: generation, serials: &serials)
            }
            if round.isMultiple(of: 2) {
                machine.holdInstance(Item(round), generation: generation)
                _ = machine.publish(generation: generation)
                #expect(machine.reset().number == round)
            } else {
                _ = machine.fail(generation: generation, telling: .finished(.failure(TestFailure(0))))
            }
            machine.checkInvariants()
        }
        #expect(generations.count == 6 && generations == generations.sorted() && Set(generations).count == 6)
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

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
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
    #endif
}

// MARK: Helpers

/// The storages a cell keeps its value in, for tests that hold for both.
enum StorageKind: CaseIterable {
    case strong, weak

    /// The strategy of a provider whose cell keeps its value so.
    var strategy: ProviderStrategy {
        switch self {
        case .strong: .single
        case .weak: .weak
        }
    }
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
        var serials: UInt64 = 0
        let agent = BuildAgent.standalone()
        let step = makeStep()
        switch self {
        case .holdWithNoBuild:
            machine.holdInstance(Item(), generation: 1)
        case .holdForStaleGeneration:
            let generation = machine.claim(by: agent, step: step, serials: &serials).generation ?? 0
            machine.holdInstance(Item(), generation: generation &+ 1)
        case .publishWithNoInstance:
            let generation = machine.claim(by: agent, step: step, serials: &serials).generation ?? 0
            _ = machine.publish(generation: generation)
        case .publishReadyCell:
            let generation = machine.buildAndPublish(Item(), by: agent, step: step, serials: &serials)
            _ = machine.publish(generation: generation)
        case .failWithNoBuild:
            _ = machine.fail(generation: 1, telling: .finished(.failure(TestFailure(0))))
        case .failStaleGeneration:
            let generation = machine.claim(by: agent, step: step, serials: &serials).generation ?? 0
            _ = machine.fail(generation: generation &+ 1, telling: .finished(.failure(TestFailure(0))))
        case .completeReadyCell:
            let generation = machine.buildAndPublish(Item(), by: agent, step: step, serials: &serials)
            _ = machine.complete(with: Item(), generation: generation)
        case .completeHeldInstance:
            let generation = machine.claim(by: agent, step: step, serials: &serials).generation ?? 0
            machine.holdInstance(Item(), generation: generation)
            _ = machine.complete(with: Item(), generation: generation)
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

/// A claim as a comparable summary: instances by identity, steps by name. A build's generation is
/// left out: the host numbers it, and tests compare it with others rather than with a number.
enum ClaimSummary: Equatable {
    case ready(ObjectIdentifier)
    case build
    case ownInstance(ObjectIdentifier)
    case cycle(generation: UInt64)
    case wait(generation: UInt64)
    case retired
    case clash(ProviderStrategy)
}

extension OnceStateMachine.Claim {
    var summary: ClaimSummary {
        switch self {
        case .ready(let value): .ready(ObjectIdentifier(value))
        case .build: .build
        case .ownInstance(let value): .ownInstance(ObjectIdentifier(value))
        case .cycle(let generation): .cycle(generation: generation)
        case .wait(let generation): .wait(generation: generation)
        case .retired: .retired
        case .clash(let strategy): .clash(strategy)
        }
    }

    /// The generation of the build that the claim starts, if it starts one.
    var generation: UInt64? {
        if case .build(let generation) = self { return generation }
        return nil
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
        guard let build = build else { return [] }
        return build.waiters.map(\.id)
    }

    /// Builds `value` as the next generation, numbered from `serials`, and makes it ready; returns
    /// the generation.
    @discardableResult
    mutating func buildAndPublish(_ value: Value, by agent: BuildAgent, step: Step, serials: inout UInt64)
        -> UInt64
    {
        guard case .build(let generation) = claim(by: agent, step: step, serials: &serials) else {
            Issue.record("the cell must be empty to build")
            return 0
        }
        holdInstance(value, generation: generation)
        _ = publish(generation: generation)
        return generation
    }
}

/// What each parker was given, received on another thread under a watchdog, since `receive()` sleeps
/// until something is delivered.
func received(by parkers: [Parker<WaitEvent>]) -> [EventSummary] {
    let events = LockedBox<[EventSummary]>([])
    let parkers = Unchecked(parkers)
    withWatchdog {
        let summaries = parkers.value.map { $0.receive().summary }
        events.withLock { $0 = summaries }
    }
    return events.withLock { $0 }
}
