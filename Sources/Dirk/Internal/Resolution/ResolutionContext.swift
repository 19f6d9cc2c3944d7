/// One thread's resolution: the steps it is inside, the components it entered, and what it must do
/// when it ends. A thread's agent in the wait graph.
///
/// A resolution begins when a thread calls a provider while inside none, and ends when that
/// outermost call returns. Until then it keeps every component it entered alive and counted in the
/// component's gate, so that deeper calls into the same component neither count nor retain again;
/// when it runs a part of an async resolution, it then hands them to that one (`TaskAgent.adopt`).
@usableFromInline package final class ResolutionContext: LockedWaitAgent, @unchecked Sendable {
    // Everything below belongs to the context's own thread, which alone reads and writes it, but
    // for `stack`, which another agent reads to describe a cycle only while this thread is blocked
    // (see `BuildAgent.steps`); what it waits for is under `LockedWaitAgent`'s lock. Swift's run-time
    // exclusivity checks, which one thread's accesses cannot fail, are off for the variables that
    // every provider call or every build touches: they cost a third of a `transient` (see
    // Architecture).

    /// The steps this thread is inside, outermost first.
    @usableFromInline let stack = StepStack<Step>(buckets: 1_024)
    /// The store of the `scoped` instances of the thread's own resolutions, one at a time (see
    /// `scope`), which keeps no cell past its build: a thread makes no store per resolution.
    let ownScope = ScopeStore(isShared: false)
    /// What the resolution under way keeps until it ends (see `Resolution`), in place.
    @usableFromInline @exclusivity(unchecked) var record = Resolution()
    /// Whether an outermost call runs `asOutermost`, which ends the resolution when it returns: a
    /// step it enters and leaves at depth zero does not.
    @usableFromInline @exclusivity(unchecked) var isOutermostCall = false

    /// An empty array with room, which the next resolution with `scoped` instances keeps them in
    /// (see `endResolution()`).
    var spareScoped: [ScopedInstance] = []

    /// The observed provider calls under way on this thread, innermost last, each with the index its
    /// step has, or will have, on the stack (the depth when it was observed), in the resolution of
    /// that number (`endedResolutions` then).
    var observedCalls: [(call: ObservedCall, stepIndex: Int, resolution: UInt64)] = []
    /// How many resolutions with work at their end have ended on this thread: what tells a call that
    /// a deinitializer makes at a resolution's end, whose steps start again at the bottom of the
    /// stack, from a call of the resolution that is ending.
    var endedResolutions: UInt64 = 0

    /// The keys of the `single(key:)` steps on this thread's stack, innermost last, each with the
    /// owner of its step: what a cycle's message names them by.
    var keyedSteps: [(owner: UInt, key: AnyHashable)] = []

    /// The keys of the `single(key:)` steps on this thread's stack, by their steps' owners, for
    /// messages.
    @usableFromInline static var stepKeys: [UInt: AnyHashable] {
        Dictionary(current.keyedSteps.map { ($0.owner, $0.key) }, uniquingKeysWith: { $1 })
    }

    @usableFromInline override init() {}

    /// How many steps deep the thread is: zero outside any resolution.
    @inlinable var depth: Int { stack.depth }

    /// The calling thread's context, made on its first resolution and released when it exits.
    @inlinable package static var current: ResolutionContext { ThreadContext.current(ResolutionContext.init) }

    /// Runs `body` with the calling thread's context, lent without a reference count of its own.
    @inlinable
    package static func withCurrent<Result>(_ body: (ResolutionContext) throws -> Result) rethrows -> Result {
        try ThreadContext.withCurrent(ResolutionContext.init, body)
    }

    // MARK: Entering components

    /// Runs `body` with what the resolution under way keeps, in place.
    @inlinable @inline(__always) func withRecord<Result>(_ body: (inout Resolution) -> Result) -> Result {
        body(&record)
    }

    /// Runs `body`, an outermost call's work when the thread is inside no step, and ends the
    /// resolution after it if it did not end inside: a call that enters its component but finds its
    /// instance without entering a step still ends. Throws what ending throws, if `body` did not.
    @inlinable @inline(__always) func asOutermost<Result>(_ body: () throws -> Result) throws -> Result {
        guard depth == 0 && !isOutermostCall else { return try body() }
        isOutermostCall = true
        let result: Result
        do {
            defer { isOutermostCall = false }
            result = try body()
        } catch {
            if record.hasWorkAtItsEnd { _ = endResolution() }
            throw error
        }
        if record.hasWorkAtItsEnd, let failure = endResolution() { throw failure }
        return result
    }

    /// Whether a call made now is made directly by the step at `index` of the resolution numbered
    /// `resolution` (see `observedCalls`): that resolution is still under way, and no provider's step
    /// lies between them on the stack, such as one of a component that nobody observes, nor a key's
    /// hashing, which runs before its provider is observed. (Handles' and module creations' steps do
    /// not count: they pass the call on.)
    func isCalledDirectly(byStepAt index: Int, inResolution resolution: UInt64) -> Bool {
        guard resolution == endedResolutions else { return false }
        return stack.isCalledDirectly(byStepAt: index, top: depth - 1)
    }

    // MARK: Steps

    /// Enters the step `step`. Pair every call with `leave()`.
    @inlinable @inline(__always) func enter(_ step: Step) { stack.push { step } }

    /// The step on the stack that is the same as `step`, if any.
    @inlinable @inline(__always)
    func enclosing(_ step: Step) -> Step? { stack.lastIndex(ofSameAs: step).map { stack[$0] } }

    /// Enters the step that `makeStep` makes, of a provider that caches nothing (a
    /// `transient`, a fresh instance, an injection) or of a handle that resolves anew on every call;
    /// stops the program with the path if the same step is under way already, which would recurse
    /// without end (see `StepStack.stopIfRecursing()`).
    @inlinable @inline(__always) func enterUncached(_ makeStep: () -> Step) {
        stack.push(makeStep)
        stack.stopIfRecursing()
    }

    /// Leaves the step entered last; when it was the outermost, ends the resolution, and returns why
    /// its outermost call must throw instead of returning its value, if it must (see
    /// `ResolutionEndFailure`). A step left on its way to throwing ignores that.
    @inlinable @inline(__always) func leave() -> ResolutionEndFailure? {
        stack.pop()
        if depth == 0 && record.hasWorkAtItsEnd && !isOutermostCall { return endResolution() }
        return nil
    }

    /// Runs `body`, the factory of a provider that caches nothing, inside the step `step`, which
    /// stops the program if it recurses, and leaves the step on every path. Throws what `body`
    /// throws, or the failure of the resolution's end when leaving the step ends the resolution.
    ///
    /// The factory counts among the factories running on this thread, as a cached build's does
    /// (see `CellReference.build`): a `configure:` closure that cannot throw, reached inside it,
    /// waits until it has returned.
    @inlinable @inline(__always)
    func inUncachedStep<Result>(_ step: @autoclosure () -> Step, _ body: () throws -> Result) throws
        -> Result
    {
        enterUncached(step)
        record.runningFactories &+= 1
        let result: Result
        do {
            defer { record.runningFactories &-= 1 }
            result = try body()
        } catch {
            _ = leaveFactory()
            throw error
        }
        if let failure = leaveFactory() { throw failure }
        return result
    }

    /// Leaves the step on top, whose factory returned or threw (see `leave()`). When it was the last
    /// factory running on this thread, the `configure:` closures that waited for it run then, even
    /// if it threw (`leaveLastFactory()`): they cannot throw, and their instances are complete, so
    /// no other thread that took one of them fails for a factory it never called.
    @inlinable @inline(__always) func leaveFactory() -> ResolutionEndFailure? {
        record.runningFactories == 0 && !record.pendingConfigurations.isEmpty ? leaveLastFactory() : leave()
    }

    /// Leaves the step on top, whose factory, the last one running on this thread, returned or threw,
    /// with `configure:` closures waiting for it: they run then, newest first, outside its step, since
    /// they may call its provider again, and before the resolution ends.
    @usableFromInline @inline(never) func leaveLastFactory() -> ResolutionEndFailure? {
        stack.pop()
        let wasOutermost = isOutermostCall
        isOutermostCall = true
        runPendingConfigurations()
        isOutermostCall = wasOutermost
        return depth == 0 && record.hasWorkAtItsEnd && !isOutermostCall ? endResolution() : nil
    }

    package override func steps(from step: Step) -> [Step] { stack.all(from: step) }

    // MARK: Ending the resolution

    /// Ends the resolution, when its outermost call returns; returns why that call must throw instead
    /// of returning its value, if it must (see `ResolutionEndFailure`).
    ///
    /// In order: the builds it held, which it publishes once every instance it took from another
    /// agent is configured (see `endBuilds()`); its scope (`ScopeStore.leave(taking:owns:)`), and its
    /// `scoped` instances; then its components, which it hands to the agent of the task whose async
    /// resolution it runs a part of, if any (`TaskAgent.adopt(_:)`), or leaves. It releases last,
    /// outside any lock: a deinitializer may run user code, even resolve again on this thread, which
    /// then starts a resolution of its own.
    @inline(never)
    @usableFromInline func endResolution() -> ResolutionEndFailure? {
        endedResolutions &+= 1
        let failure = record.holds.hasBuilds ? endBuilds() : nil
        if let store = record.scope {
            // Out of the record first: ending the store and releasing the instances may run user code
            // that resolves again on this thread, whose resolution starts with none.
            // The instances change places with the spare array, empty, which keeps its room: a thread's
            // resolutions take turns with two arrays instead of allocating one each.
            let owns = record.ownsScope
            var ended = spareScoped
            spareScoped = []
            swap(&ended, &record.scoped)
            record.scope = nil
            store.leave(taking: ended, owns: owns)
            ended.reverse()
            // Each goes as it is popped, first the first kept.
            while ended.popLast() != nil {}
            spareScoped = ended
        }
        if !record.entered.entries.isEmpty {
            // A component's release may run user code that resolves again on this thread, whose
            // resolution takes the rest.
            // It looks for that agent only while some agent is alive (see `TaskAgent.ofCurrentTask`).
            TaskAgent.ofCurrentTask?.adopt(record.entered)
            record.entered.leaveAll()
        }
        return failure
    }

    /// Waits until every instance the resolution took from another agent while it was configured,
    /// and every build those depend on, is configured (`BorrowedWalk`): the instances this
    /// resolution returns, and those it published, may refer to any of them. Then publishes what it
    /// held, so that no other agent sees an instance before all it may refer to is configured. A
    /// build among them may fail instead: what this resolution held since it took the instance that
    /// led to the failure may refer to a dropped instance, so it is dropped too, and the outermost
    /// call, whose value may refer to it as well, throws.
    private func endBuilds() -> ResolutionEndFailure? {
        var walk = record.holds.takeBorrowed()
        while let build = walk.next() {
            walk.record(build.cell.waitUntilConfigured(build, as: self), of: build)
        }
        let ended = record.holds.end(after: walk)
        return BuildHolds.finish(ended)
    }
}

/// A resolution that enters components, and keeps each it entered until it ends: a thread's
/// (`ResolutionContext`), or a task's part of an async one (`TaskAgent`). Each keeps a `Resolution`,
/// which `withRecord` lends: a thread in place, a task under its lock. Every operation on it is
/// written once, below.
@usableFromInline protocol EnteringResolution: AnyObject {
    /// Runs `body` with what the resolution keeps.
    func withRecord<Result>(_ body: (inout Resolution) -> Result) -> Result
}

extension EnteringResolution {
    /// The entry of the component with the address `identity`, if the resolution entered it.
    @inlinable @inline(__always) func entry(of identity: UInt) -> Entered? {
        withRecord { $0.entered.entry(of: identity) }
    }

    /// Records `component`, which its gate admitted, as entered: the resolution keeps it, counted in
    /// its gate, until it ends.
    @inlinable func enter(_ component: AnyObject, storage: any EnteredComponent) -> Entered {
        withRecord { $0.entered.enter(component, storage: storage) }
    }
}

/// An agent that runs a part of a resolution: a thread's (`ResolutionContext`), or a task's
/// (`TaskAgent`). It enters components, keeps its `scoped` instances, and takes other agents'
/// half-configured instances to break cycles of waits, each until its part ends.
protocol ResolutionAgent: BuildAgent, EnteringResolution {
    /// The store of the resolution's `scoped` instances for a call made now: chosen on the first
    /// `scoped` call of a thread's resolution, for its whole run; for a task's, the async
    /// resolution's while that one is under way, and then one of the task's own.
    var scope: ScopeStore { get }
}

extension ResolutionAgent {
    /// Records that the agent took the instance of the build `record`, half-configured, whose
    /// configuration it waits for before its builds end (see `BuildHolds.borrow`).
    func borrow(_ record: BuildRecord) { withRecord { $0.holds.borrow(record) } }

    /// The instance of the `scoped` provider whose own cell key is `key` that this part took already
    /// from `store`, if any: a part keeps each instance it took until it ends, and gets it again
    /// while it uses the scope it took it from.
    func takenScoped(_ key: CellKey, from store: ScopeStore) -> AnyObject? {
        let identity = ObjectIdentifier(store)
        return withRecord { $0.scoped.first { $0.key == key && $0.store == identity }?.value }
    }

    /// Keeps `instance`, a `scoped` instance this part took, until it ends.
    func keepScoped(_ instance: ScopedInstance) { withRecord { $0.scoped.append(instance) } }

    /// Publishes the build `record`, made in the step `step`, whose instance is complete (its
    /// `configure:` ran, or it has none); or, if the agent must hold it (`BuildHolds.mustHold`: it may
    /// refer to a half-configured instance), or `always` (its `configure:` waited for the factories),
    /// holds it until the agent's builds end, marked configured with the builds it may refer to.
    func publishOrHold(_ record: BuildRecord, step: Step, always: Bool = false) {
        let dependencies = withRecord { resolution in
            always || resolution.holds.mustHold ? resolution.holds.hold(record, step: step) : nil
        }
        if let dependencies {
            record.cell.markConfigured(generation: record.generation, dependencies: dependencies)
        } else {
            record.cell.publish(generation: record.generation)
        }
    }
}

extension ResolutionContext: ResolutionAgent {}
