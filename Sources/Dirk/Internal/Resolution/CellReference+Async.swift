extension CellReference {
    /// The cell's value for a task: the ready one, or the one this task builds, or the one another
    /// agent is building, waited for without blocking a thread. The task's form of
    /// `resolveUnlessRetired(in:step:build:configure:configureMayWait:)`, which decides the same: a
    /// task suspends where a thread parks.
    ///
    /// A waiting task whose caller can receive `CancellationError` stops waiting as soon as it is
    /// cancelled and throws it; the build goes on for the others. Any other waits until the build
    /// ends. A build whose factory throws `CancellationError` while its own task is cancelled ends
    /// without passing that on: the waiters, which were not cancelled with it, look again, and one
    /// of them builds.
    ///
    /// - Parameters:
    ///   - agent: The calling task's agent.
    ///   - step: The step that asks, which is also the step that builds if this task builds.
    ///   - cancellable: Whether the caller can receive `CancellationError`: whether the provider
    ///     or handle that asks throws `any Error`. `Failure` does not tell, since the async
    ///     pipeline erases a provider's error type to `any Error`; when it is true, `Failure`
    ///     holds `CancellationError`.
    ///   - build: Makes the value. If it throws, every agent waiting for this build gets the same
    ///     error, nothing is cached, and the next call builds again.
    ///   - configure: Completes a new value as soon as `build` returns (see `ConfigureKind`); this task
    ///     alone gets the value meanwhile, for cycles through `configure:`. If it throws, nothing is
    ///     cached.
    /// - Returns: The value, or nil if the cell, a key's, was dropped by a `reset()` after the caller
    ///   found it: the caller looks the key up again.
    func resolve<Failure: Error>(
        in agent: TaskAgent, step: Step, cancellable: Bool, isolation: isolated (any Actor)? = #isolation,
        build: () async throws(Failure) -> Value, configure: ((Value) async throws(Failure) -> Void)? = nil
    ) async throws(Failure) -> Value? {
        while true {
            switch claimed(by: agent, step: step) {
            case .value(let value): return value
            case .build(let generation):
                return try await self.build(
                    generation, in: agent, step: step, build: build, configure: configure)
            case .wait(let generation):
                let event = await wait(for: generation, in: agent, step: step, cancellable: cancellable)
                if let value = try event.value(as: Failure.self, at: step) { return value }
                // A cancelled task that may stop stops here rather than build anew: a wait ends as
                // `cancelled` only for such a task.
                if cancellable && Task.isCancelled, let cancellation = CancellationError() as? Failure {
                    throw cancellation
                }
            }
        }
    }

    /// Builds generation `generation` in this task, inside its step, and does what the resolution's
    /// rule says once the factory returned (`Resolution.afterFactory`), as a thread's build does: it
    /// completes at once, or it is held, configured, and published or held until the agent's builds
    /// end. An async provider's `configure:` runs as soon as its factory returns (see
    /// `ConfigureKind`): this task gets the instance from the cell meanwhile, and another agent in a
    /// cycle of waits with this one may take it (`wait`), then waits for its configuration before it
    /// publishes what it holds, so that a ring of async providers resolves from both ends at once.
    ///
    /// Once no `configure:` runs on this task, what it held is published, after the instances it
    /// took are configured, rather than when its call ends: the rest of the call may await a child
    /// task that asks for one of them. Throws the failure of an instance the task took, whose build
    /// then failed (see `TaskAgent.endBuilds`).
    private func build<Failure: Error>(
        _ generation: UInt64, in agent: TaskAgent, step: Step, isolation: isolated (any Actor)? = #isolation,
        build: () async throws(Failure) -> Value, configure: ((Value) async throws(Failure) -> Void)?
    ) async throws(Failure) -> Value {
        let value: Value
        do throws(Failure) { value = try await agent.run(step, build) } catch {
            end(generation: generation, throwing: error, at: step)
            throw error
        }
        if agent.withRecord({ $0.afterFactory(configure: configure == nil ? .none : .atOnce) }) == .complete {
            complete(value, generation: generation)
        } else {
            let record = hold(value, generation: generation)
            if let configure {
                let mark = agent.withRecord { $0.beginConfiguring(record) }
                // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
                var thrown: Failure?
                do throws(Failure) {
                    try await agent.run(step) { () async throws(Failure) in try await configure(value) }
                } catch { thrown = error }
                agent.withRecord { $0.holds.endConfiguring(record) }
                if let error = thrown {
                    // The instance goes, and its waiters get the error; then what was held meanwhile,
                    // which may refer to it.
                    end(generation: generation, throwing: error, at: step)
                    let built = agent.withRecord { $0.takeBuilt(since: mark) }
                    Resolution.drop(built, because: BuildFailure(error: error, step: step))
                    throw error
                }
            }
            agent.publishOrHold(record, step: step)
        }
        if let failure = await agent.endBuilds() {
            throw Diagnostics.typedError(failure, as: Failure.self, at: step)
        }
        return value
    }

    /// Ends generation `generation`, whose factory or `configure:` threw `error` in the step `step`:
    /// its waiters get the error; but for the cancellation of the builder's own task, which they do
    /// not share: they look again, and one of them builds.
    private func end(generation: UInt64, throwing error: any Error, at step: Step) {
        let isCancelled = error is CancellationError && Task.isCancelled
        end(
            generation: generation, telling: isCancelled ? .recheck : .finished(.failure(error)),
            causedBy: BuildFailure(error: error, step: step))
    }

    /// Suspends until another agent's build of generation `generation` ends, or, if
    /// `cancellable`, until the task is cancelled.
    private func wait(
        for generation: UInt64, in agent: TaskAgent, step: Step, cancellable: Bool,
        isolation: isolated (any Actor)? = #isolation
    ) async -> WaitEvent {
        if cancellable && Task.isCancelled { return .cancelled }
        // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
        agent.waitingFor = target(generation)
        let event = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                // A cancellation that came before the waiter is in the cell finds nothing to wake: the
                // waiter is not added once the task is cancelled, which the cell's lock orders with
                // the handler's look. Whichever takes the waiter out of the cell resumes it.
                let waiter = Waiter.task(TaskWaiter(continuation))
                let atOnce = enqueue(
                    waiter, of: agent, generation: generation, step: step,
                    unless: { cancellable && Task.isCancelled })
                if let atOnce { continuation.resume(returning: Delivery(event: atOnce)) }
            }
        } onCancel: {
            guard cancellable else { return }
            // The task's agent waits in this cell only, and only for this build.
            withMachine { machine, _ in machine.dequeueWaiters(of: agent, telling: .cancelled) }?.run()
        }
        agent.waitingFor = nil
        return event.event
    }
}

extension CellReference {
    /// Suspends until the build `record` of this cell is configured, or has ended, as `agent`'s
    /// outermost call ends; returns the builds its instance depends on, which the agent waits for
    /// in turn, or how it failed. A task's form of the thread's wait, which tells more.
    func waitUntilConfigured(
        _ record: BuildRecord, as agent: TaskAgent, isolation: isolated (any Actor)? = #isolation
    ) async -> ConfigurationOutcome {
        let target = target(record.generation, forConfiguration: true)
        // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
        agent.waitingFor = target
        var outcome: ConfigurationOutcome?
        while outcome == nil {
            _ = await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                outcome = configurationOutcome(record, orEnqueue: .task(TaskWaiter(continuation)), of: agent)
                if outcome != nil { return continuation.resume(returning: Delivery(event: .recheck)) }
                CycleDetector.wakeAgentThatMayTake(agent, waitingFor: target)
            }
        }
        agent.waitingFor = nil
        return outcome!
    }
}
