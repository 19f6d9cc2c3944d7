extension CellReference {
    package typealias Value = AnyObject

    /// What an agent that asks for the cell's value does next, once the cell's state machine has
    /// answered its claim: the answers that end the call (a value, or nil for a retired cell) and
    /// those that stop the program (a clash, a cycle) are the same for threads and tasks; a thread
    /// parks where a task suspends (`Claimed`).
    func claimed(by agent: BuildAgent, step: Step) -> Claimed {
        switch host.claim(key, by: agent, step: step) {
        // A key's cell that a `reset()` dropped: the caller looks the key up again.
        case .retired: return .value(nil)
        case .clash(let first): Diagnostics.providerClash(step, first: first)
        case .ready(let value), .ownInstance(let value): return .value(value)
        case .cycle(let generation):
            // The agent's own build, which only the agent ends: still under way.
            let building = host.build(at: key, generation: generation)!.step
            Diagnostics.cycle(
                path: agent.steps(from: building) + [step], at: step, keys: ResolutionContext.stepKeys)
        case .build(let generation): return .build(generation: generation)
        case .wait(let generation): return .wait(generation: generation)
        }
    }

    /// Adds `waiter`, of `agent`, to the build of generation `generation`; returns nil while it waits,
    /// for whoever takes it out of the cell to wake it, or what the agent goes on with at once:
    /// `.recheck`, to claim again, if the build ended meanwhile or `isCancelled()` (a task that may
    /// stop waiting was cancelled). As on the builder's own agent, an instance that may be taken to
    /// break a cycle of waits is complete enough to hand over: the waiter takes it instead of waiting
    /// (`.finished` with it), and `agent` waits for its configuration before its builds end (see
    /// `BuildHolds.borrow`).
    func enqueue(
        _ waiter: Waiter, of agent: some ResolutionAgent, generation: UInt64, step: Step,
        unless isCancelled: () -> Bool = { false }
    ) -> WaitEvent? {
        let id = withMachine { machine, serials in
            isCancelled()
                ? nil : machine.enqueue(waiter, of: agent, generation: generation, serials: &serials)
        }
        guard let id = id ?? nil else { return .recheck }
        guard let (instance, record) = takeInstance(generation, by: agent, waiter: id, at: step) else {
            return nil
        }
        agent.borrow(record)
        return .finished(.success(instance))
    }

    /// The cell's value for a thread: the ready one, or the one this thread builds, or the one
    /// another agent is building, waited for; or nil without building when the cell was retired:
    /// the caller finds the cell that its table holds now and resolves that one.
    ///
    /// - Parameters:
    ///   - context: The calling thread's resolution.
    ///   - step: The step that asks, which is also the step that builds if this thread builds.
    ///   - build: Makes the value, with no lock held. If it throws, every agent waiting for this
    ///     build gets the same error, nothing is cached, and the next call builds again.
    ///   - configure: Completes a new value once this thread can see it, for cycles through
    ///     `configure:` (see `Resolution.afterFactory`); nil when the provider has none.
    ///   - configureMayWait: Whether `configure` cannot throw, and so may wait for the factories
    ///     under way (see `Resolution.afterFactory`).
    package func resolveUnlessRetired<Failure: Error>(
        in context: ResolutionContext, step: Step, build: () throws(Failure) -> Value,
        configure: ((Value) throws -> Void)? = nil, configureMayWait: Bool = false
    ) throws(Failure) -> Value? {
        while true {
            switch claimed(by: context, step: step) {
            case .value(let value): return value
            case .build(let generation):
                return try self.build(
                    generation, in: context, step: step, build: build, configure: configure,
                    configureMayWait: configureMayWait)
            case .wait(let generation):
                let event = wait(for: generation, in: context, step: step)
                if let value = try event.value(as: Failure.self, at: step) { return value }
            }
        }
    }

    /// Builds generation `generation` on this thread, inside its step, and does what the resolution's
    /// rule says once the factory returned (`Resolution.afterFactory`).
    @inline(__always) func build<Failure: Error>(
        _ generation: UInt64, in context: ResolutionContext, step: Step, build: () throws(Failure) -> Value,
        configure: ((Value) throws -> Void)?, configureMayWait: Bool
    ) throws(Failure) -> Value {
        context.enter(step)
        context.record.runningFactories += 1
        let value: Value
        do throws(Failure) {
            defer { context.record.runningFactories -= 1 }
            value = try build()
        } catch {
            end(generation: generation, telling: .finished(.failure(error)))
            _ = context.leaveFactory()
            throw error
        }
        let kind: ConfigureKind = configure == nil ? .none : configureMayWait ? .mayWait : .atOnce
        let next = context.record.afterFactory(configure: kind)
        do throws(Failure) {
            if case .settle(let runsPending, let when) = next {
                try settle(
                    value, generation: generation, in: context, step: step, runsPending: runsPending,
                    configure: configure.map { configure in (when, configure) }, throwing: Failure.self)
            } else {
                complete(value, generation: generation)
            }
        } catch {
            _ = context.leave()
            throw error
        }
        // Left after the build settles: leaving the outermost step ends the resolution, which may
        // wait for other agents' builds, and may find that the value refers to a dropped instance.
        if let failure = context.leave() {
            throw Diagnostics.typedError(failure, as: Failure.self, at: step)
        }
        return value
    }

    /// What a build whose value exists does when it cannot complete at once (see
    /// `Resolution.afterFactory`): it is held; the closures that waited run if `runsPending`; its
    /// `configure:` runs now, or waits; then it is published, or held until the resolution ends.
    private func settle<Failure: Error>(
        _ value: Value, generation: UInt64, in context: ResolutionContext, step: Step, runsPending: Bool,
        configure: (time: ConfigureTime, closure: (Value) throws -> Void)?, throwing _: Failure.Type
    ) throws(Failure) {
        // Held first, which only its builder sees until it is published: every way on holds it.
        let record = hold(value, generation: generation)
        // The closures that waited for the factories may need this instance: they get it.
        if runsPending { context.runPendingConfigurations() }
        switch configure?.time ?? .never {
        case .never: break
        case .whenFactoriesReturn:
            let configure = configure!.closure
            // Held until its closure has run (`runPendingConfigurations`).
            return context.deferConfiguration(of: record, step: step) {
                do { try configure(value) } catch {
                    preconditionFailure("Dirk internal error: a configure: that cannot throw threw \(error)")
                }
            }
        case .now:
            let mark = context.record.beginConfiguring(record)
            do {
                defer { context.record.holds.endConfiguring(record) }
                try configure!.closure(value)
            } catch {
                // The instance goes, and its waiters get the error; then what was built meanwhile,
                // which may refer to it.
                end(generation: generation, telling: .finished(.failure(error)))
                Resolution.drop(
                    context.record.takeBuilt(since: mark), because: BuildFailure(error: error, step: step))
                throw Diagnostics.typedError(error, as: Failure.self, at: step)
            }
        }
        // It configured, or served the closures that waited: published, unless a `configure:`
        // closure of an enclosing step still runs or waits here, and this value may already refer to
        // its half-configured instance; or the resolution took another agent's half-configured
        // instance, which this one may refer to. Other agents get it once the resolution ends, when
        // all those are configured; an agent that takes it before then waits for them too.
        context.publishOrHold(record, step: step)
    }

    /// Holds `value`, built as generation `generation`, which only its builder sees until it is
    /// published, and returns the build's record.
    func hold(_ value: Value, generation: UInt64) -> BuildRecord {
        BuildRecord(
            cell: self, generation: generation,
            outcome: withMachine { cell, _ in cell.holdInstance(value, generation: generation) }!)
    }

    /// Waits for another agent's build of generation `generation`, looking for a cycle of waits
    /// first, and returns what the build ended with, or `.recheck` to claim again.
    func wait(for generation: UInt64, in context: ResolutionContext, step: Step) -> WaitEvent {
        let parker = Parker<WaitEvent>()
        // Recorded before the wait is, so that an agent that sees this one waiting in the cell
        // also sees what it waits for (see `BuildAgent`).
        context.waitingFor = target(generation)
        defer { context.waitingFor = nil }
        return enqueue(.thread(parker), of: context, generation: generation, step: step) ?? parker.receive()
    }

    /// The instance of generation `generation`, as it is, and the build's record, if `agent`, about to
    /// wait for it in the step `step` as the waiter `id`, may take it: removes that waiter, which no
    /// longer waits. Otherwise wakes the agent that must look again first, if any, and stops the
    /// program with the path on a cycle of waits.
    func takeInstance(
        _ generation: UInt64, by agent: BuildAgent, waiter id: UInt64, at step: Step
    ) -> (instance: Value, record: BuildRecord)? {
        switch CycleDetector.check(agent, waitingFor: target(generation)) {
        case nil: return nil
        case .takeInstance:
            let taken = withMachine { cell, _ in cell.takeInstance(generation: generation, dequeuing: id) }
            return (taken ?? nil).map { ($0, BuildRecord(cell: self, generation: generation, outcome: $1)) }
        case .wake(let other, let otherTarget):
            otherTarget.host.wakeToRecheck(other, at: otherTarget.key)
            return nil
        case .cycle(let chain):
            Diagnostics.cycleAcrossAgents(
                path: CycleDetector.path(of: chain, from: agent), at: step, keys: ResolutionContext.stepKeys)
        }
    }
}

/// What an agent does once a cell answered its claim (`CellReference.claimed(by:step:)`).
enum Claimed {
    /// Return this value, or look a retired key's cell up again (nil).
    case value(AnyObject?)
    /// Build the value: the cell builds generation `generation` for this agent.
    case build(generation: UInt64)
    /// Wait for another agent's build of generation `generation`.
    case wait(generation: UInt64)
}

extension CellReference {
    /// Waits until the build `record` of this cell is configured, or has ended, as the step of
    /// `agent`'s resolution end; returns the builds its instance depends on, which the resolution
    /// waits for in turn, or how it failed.
    package func waitUntilConfigured(_ record: BuildRecord, as agent: BuildAgent) -> ConfigurationOutcome {
        let parker = Parker<WaitEvent>()
        let target = target(record.generation, forConfiguration: true)
        agent.waitingFor = target
        defer { agent.waitingFor = nil }
        while true {
            if let outcome = configurationOutcome(record, orEnqueue: .thread(parker), of: agent) {
                return outcome
            }
            // This resolution is over: it builds nothing more, and every build of its own is
            // configured, held for its end with its instance. An agent waiting for one of those
            // may take it as it is, which lets the build this one waits for go on.
            CycleDetector.wakeAgentThatMayTake(agent, waitingFor: target)
            // Configured, ended, or woken to look again: the loop looks.
            _ = parker.receive()
        }
    }
}

extension CellReference {
    /// How the build `record` of this cell stands once it no longer keeps an agent that saw its
    /// instance waiting (see `OnceStateMachine.configurationOutcome`); otherwise enqueues `waiter`
    /// and returns nil.
    func configurationOutcome(_ record: BuildRecord, orEnqueue waiter: Waiter, of agent: BuildAgent)
        -> ConfigurationOutcome?
    {
        // A cell that its host removed ended its build first: its outcome, written under the host's
        // lock before, tells how.
        withMachine { machine, serials in
            machine.configurationOutcome(
                generation: record.generation, outcome: record.outcome, orEnqueue: waiter, of: agent,
                serials: &serials)
        } ?? .some(record.outcome.failure.map { .failed($0) } ?? .configured(dependsOn: []))
    }

    // MARK: Ending builds

    // Each applies its transition to the cell's state under its host's lock, then runs the action
    // it returns; the cell is there, since a host removes a cell only once its build has ended. (Not
    // through one helper that takes the transition: a closure called from inside another costs
    // `cold` about 270 instructions per operation, callgrind.)

    /// Makes `value`, built as generation `generation`, the cell's value and wakes the waiters.
    func complete(_ value: Value, generation: UInt64) {
        withMachine { cell, _ in cell.complete(with: value, generation: generation) }!.run()
    }

    /// Records that the instance held for generation `generation` is complete, and the builds it
    /// depends on; wakes the agents that waited only for that.
    func markConfigured(generation: UInt64, dependencies: [BuildRecord]) {
        let action = withMachine { cell, _ in
            cell.markConfigured(generation: generation, dependencies: dependencies)
        }
        action!.run()
    }

    /// Makes the instance held for generation `generation` the cell's value and wakes the waiters.
    func publish(generation: UInt64) {
        withMachine { cell, _ in cell.publish(generation: generation) }!.run()
    }

    /// Ends generation `generation` with no value and wakes its waiters with `event`; an agent that
    /// saw its instance learns that it failed, because of `cause` if given. For a build that its
    /// builder's cancellation ended, which the waiters do not share, `event` is `.recheck`: one of
    /// them builds.
    func end(generation: UInt64, telling event: WaitEvent, causedBy cause: BuildFailure? = nil) {
        withMachine { cell, _ in cell.fail(generation: generation, telling: event, causedBy: cause) }!.run()
    }
}
