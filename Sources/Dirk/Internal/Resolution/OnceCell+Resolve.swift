extension OnceCell {
    /// The cell's value for a thread: the ready one, or the one this thread builds, or the one
    /// another agent is building, waited for.
    ///
    /// - Parameters:
    ///   - context: The calling thread's resolution.
    ///   - frame: The step that asks, which is also the step that builds if this thread builds.
    ///   - build: Makes the value, with no lock held. If it throws, every agent waiting for this
    ///     build gets the same error, nothing is cached, and the next call builds again.
    ///   - configures: Whether to run `configure` on a new value.
    ///   - configure: Completes a new value after this thread can see it, for cycles through
    ///     `configure:`.
    @inlinable package func resolve<Failure: Error>(
        in context: ResolutionContext,
        frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool,
        configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        guard
            let value = try resolveUnlessRetired(
                in: context, frame: frame, build: build, configures: configures, configure: configure)
        else {
            preconditionFailure("Dirk internal error: a retired cell was resolved")
        }
        return value
    }

    /// The cell's value for a thread, built by `build` if need be and published at once, even while
    /// a `configure:` closure runs on the thread: what creates a module, which its component
    /// publishes in its table of modules as soon as it is made.
    @inlinable package func resolve(
        in context: ResolutionContext, frame: Frame, holdsBuild: Bool, build: () -> Value
    )
        -> Value
    {
        resolveUnlessRetired(
            in: context, frame: frame, build: build, configures: false, configure: { _ in },
            holdsBuild: holdsBuild)!
    }

    /// `resolve(in:frame:build:configures:configure:)`, or nil without building when the cell was
    /// retired: the caller finds the cell that its table holds now and resolves that one.
    @inlinable package func resolveUnlessRetired<Failure: Error>(
        in context: ResolutionContext,
        frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool,
        configure: (Value) throws(Failure) -> Void,
        holdsBuild: Bool = true
    ) throws(Failure) -> Value? {
        while true {
            switch withMachine({ $0.claim(by: context, frame: frame) }) {
            case .retired:
                return nil
            case .ready(let value), .ownInstance(let value):
                return value
            case .cycle(let building):
                Diagnostics.cycle(
                    path: context.steps(from: building) + [frame], at: frame, keys: ResolutionContext.stepKeys
                )
            case .build(let generation):
                return try self.build(
                    generation, in: context, frame: frame, build: build, configures: configures,
                    configure: configure, holdsBuild: holdsBuild)
            case .wait(let generation):
                switch wait(for: generation, in: context, frame: frame) {
                case .finished(.success(let value)):
                    return value
                case .finished(.failure(let error)):
                    throw Diagnostics.rethrown(error, as: Failure.self, at: frame)
                case .recheck, .cancelled:
                    continue
                }
            }
        }
    }

    /// Builds generation `generation` on this thread.
    @inlinable @inline(__always) func build<Failure: Error>(
        _ generation: UInt64,
        in context: ResolutionContext,
        frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool,
        configure: (Value) throws(Failure) -> Void,
        holdsBuild: Bool
    ) throws(Failure) -> Value {
        context.enter(frame)
        let value: Value
        do throws(Failure) {
            value = try settle(
                generation, in: context, frame: frame, build: build, configures: configures,
                configure: configure, holdsBuild: holdsBuild)
        } catch {
            _ = context.leave()
            throw error
        }
        // Left after the build settles: leaving the outermost step ends the resolution, which may
        // wait for other agents' builds, and may find that the value refers to a dropped instance.
        if let failure = context.leave() { throw Diagnostics.rethrown(failure, as: Failure.self, at: frame) }
        return value
    }

    /// Builds generation `generation` on this thread, inside its step, and publishes it, holds it
    /// until the resolution ends, or fails it.
    @inlinable func settle<Failure: Error>(
        _ generation: UInt64,
        in context: ResolutionContext,
        frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool,
        configure: (Value) throws(Failure) -> Void,
        holdsBuild: Bool
    ) throws(Failure) -> Value {
        let value: Value
        do throws(Failure) {
            value = try build()
        } catch {
            fail(generation: generation, with: error)
            throw error
        }
        if configures {
            let outcome = withMachine { $0.holdInstance(value, generation: generation) }
            let mark = context.beginConfiguring(
                BuildRecord(cell: self, generation: generation, outcome: outcome))
            do throws(Failure) {
                try configure(value)
            } catch {
                context.endConfiguring()
                // The instance goes, and its waiters get the error; then what was built meanwhile,
                // which may refer to it.
                fail(generation: generation, with: error)
                context.dropBuilds(since: mark, because: BuildFailure(error: error, frame: frame))
                throw error
            }
            context.endConfiguring()
        }
        if holdsBuild && context.mustHoldNewBuilds {
            // A `configure:` closure of an enclosing step still runs on this thread, and this
            // value may already refer to its half-configured instance; or the resolution took
            // another agent's half-configured instance, which this one may refer to. Other
            // agents get it once the resolution ends, when all those are configured; an agent
            // that takes it before then waits for them too.
            if !configures { _ = withMachine { $0.holdInstance(value, generation: generation) } }
            markConfigured(generation: generation, dependencies: context.dependenciesOfHeldBuild)
            context.publishWhenResolutionEnds(self, generation: generation, frame: frame)
        } else if configures {
            publish(generation: generation)
        } else {
            complete(value, generation: generation)
        }
        return value
    }

    /// Waits for another agent's build of generation `generation`, looking for a cycle of waits
    /// first, and returns what the build ended with, or `.recheck` to claim again.
    @inlinable func wait(for generation: UInt64, in context: ResolutionContext, frame: Frame) -> WaitEvent {
        let parker = Parker<WaitEvent>()
        guard let id = withMachine({ $0.enqueue(.thread(parker), of: context, generation: generation) })
        else {
            return .recheck
        }
        let target = WaitTarget(cell: self, generation: generation)
        context.waitingFor = target
        defer { context.waitingFor = nil }
        switch CycleDetector.check(context, waitingFor: target) {
        case nil:
            break
        case .takeInstance:
            // As on the builder's own thread, the instance is complete enough to hand over; this
            // resolution waits for its configuration to end before its outermost call returns.
            if let (instance, outcome) = withMachine({
                $0.takeInstance(generation: generation, dequeuing: id)
            }) {
                context.waitWhenResolutionEnds(
                    for: BuildRecord(cell: self, generation: generation, outcome: outcome))
                return .finished(.success(instance))
            }
        case .wake(let agent, let other):
            other.cell.wakeToRecheck(agent)
        case .cycle(let chain):
            Diagnostics.cycleAcrossAgents(
                path: CycleDetector.path(of: chain, from: context), at: frame,
                keys: ResolutionContext.stepKeys)
        }
        return parker.receive()
    }
}

extension OnceCell: BorrowedBuild {
    @usableFromInline package func waitUntilConfigured(
        _ record: BuildRecord, as agent: BuildAgent
    ) -> ConfigurationOutcome {
        let parker = Parker<WaitEvent>()
        let target = WaitTarget(cell: self, generation: record.generation, forConfiguration: true)
        defer { agent.waitingFor = nil }
        while true {
            if let outcome = withMachine({
                $0.configurationOutcome(
                    generation: record.generation, outcome: record.outcome, orEnqueue: .thread(parker),
                    of: agent)
            }) {
                return outcome
            }
            agent.waitingFor = target
            // This resolution is over: it builds nothing more, and every build of its own is
            // configured, held for its end with its instance. An agent waiting for one of those
            // may take it as it is, which lets the build this one waits for go on.
            if let (other, otherTarget) = CycleDetector.agentToWake(agent, waitingFor: target) {
                otherTarget.cell.wakeToRecheck(other)
            }
            // Configured, ended, or woken to look again: the loop looks.
            _ = parker.receive()
        }
    }
}
