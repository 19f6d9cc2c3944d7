/// A build-once cell: a `OnceStateMachine` and the one lock that guards it, in one allocation.
///
/// The cell applies the state machine under its lock and performs what it returns outside it: it
/// runs the factory and `configure:` with no lock held, resumes waiters, and releases values.
/// Threads wait in `resolve(in:frame:build:configure:)` (this file), tasks in
/// `resolve(in:frame:build:)` (`OnceCell+Async.swift`); both take part in the one wait graph that
/// `CycleDetector` walks.
///
/// A cell is shared between threads, though `ManagedBuffer` does not let it say so: everything
/// mutable in it is the state machine, guarded by the lock of `Locked`.
///
/// Its values are objects: providers' values travel as objects (`Erasure`), and so do handles'.
/// The class is not generic, so that making and releasing a cell run code compiled for it.
@usableFromInline
package final class OnceCell: Locked<OnceStateMachine>, WaitableCell {
    @usableFromInline package typealias Value = AnyObject

    /// An empty cell, which keeps its value strongly, or, if `keepsWeakly`, only while someone else
    /// holds it (`weak`).
    @inlinable package static func make(keepsWeakly: Bool = false) -> OnceCell {
        make(OnceStateMachine(keepsWeakly: keepsWeakly))
    }

    /// The ready object, read under the lock, nil when the cell is not ready: what a cached
    /// `single`'s read calls. The reference is copied before the lock is given back, so that a
    /// `reset()` on another thread cannot release the object first.
    @inlinable package var readyObject: AnyObject? {
        withLock { $0.ready }
    }

    /// Runs `body` with the state machine while holding the lock.
    @inlinable package final func withMachine<Result>(_ body: (inout OnceStateMachine) -> Result)
        -> Result
    {
        withLock { body(&$0) }
    }

    /// The ready value, read under the lock; nil when the cell is not ready.
    @inlinable
    package final var readyValue: Value? {
        withMachine { $0.readyValue }
    }

    /// Whether the cell holds a value now.
    ///
    /// The value is read under the lock and let go after it: a `weak` cell's value is read as a
    /// strong reference, which may be the last one if its other holder lets go meanwhile, and its
    /// deinitializer, which runs user code, must run with no lock held.
    @usableFromInline package final var hasValue: Bool {
        let value = readyValue
        return withExtendedLifetime(value) { value != nil }
    }

    /// Whether a build is under way.
    package final var isBuilding: Bool { withMachine { $0.isBuilding } }

    /// Empties a ready cell; returns what it held, for the caller to release outside any lock.

    package final func reset() -> AnyObject? {
        withMachine { $0.reset() }
    }

    /// Retires the cell unless a build is under way in it (see
    /// `OnceStateMachine.retireUnlessBuilding()`); returns whether it did, and what the cell held,
    /// for the caller to release outside any lock.
    package final func retireUnlessBuilding() -> (isRetired: Bool, dropped: AnyObject?) {
        withMachine { $0.retireUnlessBuilding() }
    }

    // MARK: WaitableCell

    @usableFromInline package final func build(ofGeneration generation: UInt64) -> BuildSnapshot? {
        withMachine { $0.build(ofGeneration: generation) }
    }

    @usableFromInline package final func wakeToRecheck(_ agent: BuildAgent) {
        let woken = withMachine { $0.dequeueWaiters(of: agent) }
        for waiter in woken { waiter.resume(with: .recheck) }
    }

    // MARK: Ending builds

    /// Makes `value`, built as generation `generation`, the cell's value and wakes the waiters.
    @inlinable final func complete(_ value: Value, generation: UInt64) {
        let waiters = withMachine { $0.complete(with: value, generation: generation) }
        for waiter in waiters { waiter.resume(with: .finished(.success(value))) }
    }

    /// Records that the instance held for generation `generation` is complete, and the builds it
    /// depends on; wakes the agents that waited only for that.
    @usableFromInline final func markConfigured(generation: UInt64, dependencies: [BuildRecord]) {
        let woken = withMachine { $0.markConfigured(generation: generation, dependencies: dependencies) }
        for waiter in woken { waiter.resume(with: .recheck) }
    }

    /// Makes the instance held for generation `generation` the cell's value and wakes the waiters.
    @inlinable final func publish(generation: UInt64) {
        let (value, waiters, dependencies) = withMachine { machine in
            // The build's references to the cells it depended on go after the lock (see `end`).
            let dependencies = machine.build?.dependencies
            let (value, waiters) = machine.publish(generation: generation)
            return (value, waiters, dependencies)
        }
        withExtendedLifetime(dependencies) {}
        for waiter in waiters { waiter.resume(with: .finished(.success(value))) }
    }

    /// Ends generation `generation` with `error`, which every waiter gets too.
    @inlinable final func fail(generation: UInt64, with error: any Error) {
        end(generation: generation, telling: .finished(.failure(error)))
    }

    /// Ends generation `generation`, held until its builder's resolution ended, with no value,
    /// because its instance may refer to one that `failure` dropped; the build itself did not
    /// fail, so its waiters look again, and one builds anew. An agent that took the instance learns
    /// of `failure`.
    @usableFromInline final func drop(generation: UInt64, because failure: BuildFailure) {
        end(generation: generation, telling: .recheck, causedBy: failure)
    }

    /// Ends generation `generation` with no value, telling every waiter to look again: one of them
    /// builds. For a build that its builder's cancellation ended, which the waiters do not share.
    final func abandon(generation: UInt64) {
        end(generation: generation, telling: .recheck)
    }

    /// Ends generation `generation` with no value and wakes its waiters with `event`; an agent
    /// that saw its instance learns that it failed, because of `cause` if given.
    @usableFromInline final func end(
        generation: UInt64, telling event: WaitEvent, causedBy cause: BuildFailure? = nil
    ) {
        // The abandoned instance, if any, is released here, after the lock: its deinitializer may
        // run user code. So are the build's references to the cells it depended on, which may be
        // the last ones, and whose release releases their instances.
        let (waiters, abandoned, dependencies) = withMachine { machine in
            let dependencies = machine.build?.dependencies
            let (waiters, abandoned) = machine.fail(
                generation: generation, error: event.error, causedBy: cause)
            return (waiters, abandoned, dependencies)
        }
        withExtendedLifetime((abandoned, dependencies)) {}
        for waiter in waiters { waiter.resume(with: event) }
    }
}

/// A build held back until its builder's resolution ends (see `ResolutionContext`): published
/// then, or dropped before, if a `configure:` closure that ran when it was built throws, or a
/// build whose instance the resolution took fails.
@usableFromInline protocol HeldBuild: AnyObject {
    @inlinable func publish(generation: UInt64)
    func drop(generation: UInt64, because failure: BuildFailure)
}

extension OnceCell: HeldBuild {}
