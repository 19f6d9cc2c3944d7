extension CellReference {
    /// The cell's value for a task: the ready one, or the one this task builds, or the one another
    /// agent is building, waited for without blocking a thread.
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
    ///   - configure: Completes a new value before any other agent sees it; this task alone gets the
    ///     value meanwhile, for cycles through `configure:`. If it throws, nothing is cached.
    /// - Returns: The value, or nil if the cell, a key's, was dropped by a `reset()` after the caller
    ///   found it: the caller looks the key up again.
    func resolve<Failure: Error>(
        in agent: TaskAgent, step: Step, cancellable: Bool, build: () async throws(Failure) -> Value,
        configure: ((Value) async throws(Failure) -> Void)? = nil
    ) async throws(Failure) -> Value? {
        while true {
            switch host.claim(key, by: agent, step: step) {
            // A key's cell that a `reset()` dropped: the caller looks the key up again.
            case .retired: return nil
            case .clash(let first): Diagnostics.providerClash(step, first: first)
            case .ready(let value), .ownInstance(let value): return value
            case .cycle(let building):
                if let value = agent.configuringInstance(at: self) { return value }
                Diagnostics.cycle(
                    path: agent.steps(from: building) + [step], at: step, keys: ResolutionContext.stepKeys)
            case .build(let generation):
                do {
                    let value = try await agent.run(step, build)
                    if let configure {
                        // Seen by this task alone: another agent waits for the build to end.
                        try await agent.configuring(value, at: self) { () async throws(Failure) in
                            try await agent.run(step) { () async throws(Failure) in
                                try await configure(value)
                            }
                        }
                    }
                    complete(value, generation: generation)
                    return value
                } catch {
                    let isCancelled = error is CancellationError && Task.isCancelled
                    end(generation: generation, telling: isCancelled ? .recheck : .finished(.failure(error)))
                    throw error
                }
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

    /// Suspends until another agent's build of generation `generation` ends, or, if
    /// `cancellable`, until the task is cancelled.
    private func wait(
        for generation: UInt64, in agent: TaskAgent, step: Step, cancellable: Bool
    ) async -> WaitEvent {
        if cancellable && Task.isCancelled { return .cancelled }
        let target = target(generation)
        agent.waitingFor = target
        defer { agent.waitingFor = nil }
        let event = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                // A cancellation that came before the waiter is in the cell finds nothing to wake: the
                // waiter is not added once the task is cancelled, which the cell's lock orders with
                // the handler's look. Whichever takes the waiter out of the cell resumes it.
                let enqueued = withMachine { machine, serials in
                    cancellable && Task.isCancelled
                        ? nil
                        : machine.enqueue(
                            .task(TaskWaiter(continuation)), of: agent, generation: generation,
                            serials: &serials)
                }
                guard enqueued ?? nil != nil else {
                    return continuation.resume(returning: Delivery(event: .recheck))
                }
                // Async builds hold no instance before they end, so there is none to take.
                _ = Self.mayTakeInstance(agent, waitingFor: target, at: step)
            }
        } onCancel: {
            guard cancellable else { return }
            // The task's agent waits in this cell only, and only for this build.
            withMachine { machine, _ in machine.dequeueWaiters(of: agent, telling: .cancelled) }?.run()
        }
        return event.event
    }
}
