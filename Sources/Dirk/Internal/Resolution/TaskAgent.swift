/// One task's part in an async resolution: its agent in the wait graph, its steps, the components it
/// entered, and the `scoped` instances of the resolution it belongs to.
///
/// An async resolution begins when a task calls an async provider outside any other, and ends when
/// that call returns. Its tasks (the one that began it, and the child tasks it starts) share its
/// `ScopeStore`. Each task has its own agent, found through a task-local value that child tasks
/// inherit: a task that finds an inherited agent of another task makes its own, so that a task never
/// mistakes a build of its parent for one of its own, and an unstructured `Task { }` that asks for
/// what its parent is building simply waits for it.
///
/// A task keeps its agent until its outermost provider call returns, even when the resolution whose
/// scope it shares ends first (an unstructured `Task { }` that outlives the provider that started
/// it): it then opens a scope of its own for the rest of that call. When that call returns, the agent
/// hands the components it entered to the agent whose step started its task, while that one's call
/// is under way, so that the resolution counts them in their gates until it ends.
///
/// Each step binds a task-local marker, so that a task started inside the step (`async let`, a task
/// group, `Task { }`) knows which step of which agent started it, and whether that step still runs.
final class TaskAgent: BuildAgent, ResolutionAgent, @unchecked Sendable {
    @TaskLocal static var current: TaskAgent?
    /// The innermost async step that runs the caller or started its task.
    @TaskLocal static var enclosingStep: StepMarker?

    /// A step of an agent, as the tasks started inside it, and the agents of those, remember it:
    /// weakly, so that agents do not keep each other alive in a chain that grows with every task that
    /// starts another. While the step runs, its agent is alive (the step is a call of `run` on it);
    /// an agent that is gone runs no step, and is skipped.
    struct StepMarker: @unchecked Sendable {
        weak var agent: TaskAgent?
        let serial: UInt64
    }

    /// The task the agent acts for, as `currentTask` tells it, compared only while the
    /// agent is under way.
    let task: Int
    /// The steps that started this agent's task, nearest first, each while its agent is alive.
    private let starters: [StepMarker]
    /// Every field of `State` is guarded by this lock. The steps are written only by the agent's own
    /// task, and read by others to describe a cycle or to find the steps that started them.
    private let state: Locked<State>

    private struct State {
        /// The steps this task runs, outermost first, and the serial of each.
        let stack = StepStack<Step>(buckets: 16)
        var serials: [UInt64] = []
        var lastSerial: UInt64 = 0
        var waitingFor: WaitTarget?
        /// What the agent's part of the resolution keeps until its outermost call ends (see
        /// `Resolution`): its scope, once made, is the resolution's, shared with the tasks it
        /// starts; its builds end once no `configure:` runs on this task (see `endBuilds()`).
        var record = Resolution()
        /// Whether the agent's outermost call is under way: only then is its task running, so that
        /// `task` tells it apart from a later task at the same address.
        var isUnderWay = true
    }

    private init(task: Int, startedIn: StepMarker?, scope: ScopeStore?) {
        self.task = task
        var state = State()
        // An inherited store is not the agent's to end; a store of its own is made on first need
        // (`sharedScopes`), which then records that the agent owns it.
        state.record.scope = scope
        self.state = .make(state)
        // The step that started the task first, whatever becomes of it: its agent is the one to hand
        // the components to (see `end()`).
        starters = startedIn.map { [$0] + ($0.agent?.starters ?? []).filter { $0.agent != nil } } ?? []
        TaskAgentCount.add(1)
    }

    deinit { TaskAgentCount.add(-1) }

    override var waitingFor: WaitTarget? {
        get { state.withLock { $0.waitingFor } }
        set { state.withLock { $0.waitingFor = newValue } }
    }

    /// Whether the agent's outermost call is under way.
    private var isUnderWay: Bool { state.withLock { $0.isUnderWay } }

    /// The current task's hash value, which tells it from every other running task: the hash of its
    /// address (through the concurrency library's `withUnsafeCurrentTask`), which is unique among
    /// running tasks. An agent compares it only while its own task runs, so a reused address is
    /// never taken for its old task. Zero outside any task.
    static var currentTask: Int { withUnsafeCurrentTask { $0?.hashValue ?? 0 } }

    /// The agent of the async resolution that the current task runs a part of, if any: the task's own,
    /// or the one it inherited. While no agent is alive, or outside any task, there is none, and the
    /// task-local value is not read.
    static var ofCurrentTask: TaskAgent? {
        guard TaskAgentCount.anyAlive, withUnsafeCurrentTask(body: { $0 != nil }) else { return nil }
        return current
    }

    /// The scope that the agent's task, and the tasks that inherit the agent, share: while the
    /// agent's outermost call is under way, its scope, made now if it has none yet, or opened anew if
    /// the one it shared has ended; after that, the scope it had, until it ends. Made under the
    /// agent's lock, so that the tasks that ask at once get one store, and the end of the agent's call
    /// ends every store made before it, while none is made after it.
    var sharedScopes: ScopeStore? {
        state.withLock { state in
            if let scope = state.record.scope, !scope.hasEnded { return scope }
            guard state.isUnderWay else { return nil }
            let made = ScopeStore(isShared: true)
            state.record.scope = made
            state.record.ownsScope = true
            return made
        }
    }

    /// The first step that `find` picks among the async step that runs the caller or started its task,
    /// then the steps that started that step's task, and so on, nearest first, as long as they run:
    /// `find` gets the state of the step's agent, under its lock, and the step's index on its stack.
    private static func firstEnclosingStep(_ find: (inout State, Int) -> Step?) -> Step? {
        for marker in enclosingStep.map({ [$0] + ($0.agent?.starters ?? []) }) ?? [] {
            let found = marker.agent?.state.withLock { state in
                state.serials.lastIndex(of: marker.serial).flatMap { find(&state, $0) }
            }
            if let found { return found }
        }
        return nil
    }

    /// The outermost step in the component whose identity is `component` among the async steps that
    /// run the caller or started its task, and the steps that started those steps' tasks, as long as
    /// they run.
    static func stepUnderWay(in component: UInt) -> Step? {
        firstEnclosingStep { state, index in
            (0...index).first { state.stack[$0].component == component }.map { state.stack[$0] }
        }
    }

    /// The nearest of the async steps that run the caller or started its task whose resolution has
    /// entered the component whose identity is `component`, and so counts in its gate, as long as
    /// it runs: the caller runs a part of that resolution. A part of a resolution gives it the
    /// components it entered when it ends (`adopt(_:)`): a synchronous resolution in one of its
    /// tasks, and a task that one of its steps started.
    static func stepOfResolution(thatEntered component: UInt) -> Step? {
        firstEnclosingStep { state, index in
            state.record.entered.entry(of: component) != nil ? state.stack[index] : nil
        }
    }

    /// Runs `body` with the current task's agent: the one bound for this task, or else a new one,
    /// bound for the tasks it starts. When this call began the agent's outermost call, it ends it
    /// after `body`: leaves the components it entered and ends the scope it owns.
    ///
    /// When the call ends, the builds that the agent held wait until the instances it took from other
    /// agents are configured (`endBuilds()`); if one of those failed instead, the call throws the
    /// failure as a `ResolutionEndFailure`, through the error type of the step `step` that it runs.
    static func withCurrent<Result, Failure: Error>(
        at step: @autoclosure () -> Step, isolation: isolated (any Actor)? = #isolation,
        _ body: (TaskAgent) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let task = currentTask
        if let current, current.task == task, current.isUnderWay {
            // Through the task-local value that is bound already: Swift 6.0 refuses a result of a
            // nonisolated closure called here, in the caller's isolation, if it is not `Sendable`.
            return try await $current.outcome(current) { () async throws(Failure) in try await body(current) }
                .get()
        }
        // A child task of a resolution under way has its own agent, and the resolution's scope.
        let agent = TaskAgent(task: task, startedIn: enclosingStep, scope: current?.sharedScopes)
        // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
        let outcome = await $current.outcome(agent) { () async throws(Failure) in try await body(agent) }
        let failure = await agent.endBuilds()
        agent.end()
        if let failure, case .success = outcome {
            throw Diagnostics.typedError(failure, as: Failure.self, at: step())
        }
        return try outcome.get()
    }

    /// Ends the builds that the agent held, as a thread's resolution does when it ends
    /// (`ResolutionContext.endResolution()`), once no `configure:` closure runs or waits on this task
    /// (after each build, and when its outermost call ends): waits until every build whose instance
    /// it took, and every build those depend on, is configured (`BorrowedWalk`); then publishes the
    /// builds it held. If one of those builds failed instead, it first drops what it held since it
    /// took the instance that led to the failure, which may refer to a dropped instance, and returns
    /// the failure.
    func endBuilds(isolation: isolated (any Actor)? = #isolation) async -> ResolutionEndFailure? {
        // Inside a `configure:`, nothing: the outermost one's build ends them.
        guard
            var walk = withRecord({ record in
                record.holds.configuring.isEmpty && record.holds.hasBuilds ? record.holds.takeBorrowed() : nil
            })
        else { return nil }
        while let build = walk.next() {
            walk.record(await build.cell.waitUntilConfigured(build, as: self), of: build)
        }
        let ended = withRecord { $0.holds.end(after: walk) }
        return BuildHolds.finish(ended)
    }

    /// Ends the agent's outermost call: its scope (`ScopeStore.leave(taking:owns:)`), and its
    /// `scoped` instances; and its components, which go to the agent whose step started its task, if
    /// that one's call is still under way: the resolution counts them in their gates until it ends.
    private func end() {
        // Once the call has ended, no other part adopts into the agent's record: its components and
        // instances are the caller's alone, outside the lock.
        let (scope, owns, entered, scoped) = state.withLock { state in
            state.isUnderWay = false
            defer { state.record.scoped = [] }
            return (state.record.scope, state.record.ownsScope, state.record.entered, state.record.scoped)
        }
        scope?.leave(taking: scoped, owns: owns)
        withExtendedLifetime(scoped) {}
        starters.first?.agent?.adopt(entered)
        entered.leaveAll()
    }

    // MARK: Entering components

    /// Takes over from `entered`, what a part of the agent's resolution entered, the components
    /// that it did not enter itself and whose shutdown has not begun (which the resolution may be
    /// awaiting: kept, they would hold that shutdown for ever), to count them in their gates until
    /// its call ends; none once its call has ended. The others stay in `entered`, for its owner to
    /// leave.
    func adopt(_ entered: EnteredComponents) {
        state.withLock { state in
            guard state.isUnderWay else { return }
            let known = state.record.entered
            entered.transfer(to: known) { entry in
                known.entry(of: entry.identity) == nil && !entry.storage.isShuttingDown
            }
        }
    }

    // MARK: Configuring, held and borrowed builds

    /// Runs `body`, under the agent's lock, with what the agent's part of the resolution keeps (see
    /// `Resolution`).
    func withRecord<Result>(_ body: (inout Resolution) -> Result) -> Result {
        state.withLock { body(&$0.record) }
    }

    /// Runs `body`, the `configure:` closure of a build that caches nothing (a `fresh` call's), which
    /// no other agent can see, as a `configure:` that runs on this task: what the agent builds
    /// meanwhile is held, since it may refer to that instance.
    func configureUncached<Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> Void
    ) async throws(Failure) {
        _ = withRecord { $0.beginConfiguring(nil) }
        // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
        var thrown: Failure?
        do throws(Failure) { try await body() } catch { thrown = error }
        withRecord { $0.holds.endConfiguring(nil) }
        if let thrown { throw thrown }
    }

    // MARK: Scoped instances

    var scope: ScopeStore { sharedScopes! }

    // MARK: Steps

    /// Runs `body` as the step `step` of this task, marked for the tasks it starts. A step of a
    /// provider or handle that caches nothing (`uncached`) stops the program with the path if the
    /// same step is under way already, as on a thread (see `ResolutionContext.enterUncached`).
    func run<Result, Failure: Error>(
        _ step: Step, uncached: Bool = false, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let outcome = await Self.$enclosingStep.outcome(enter(step, uncached: uncached), body)
        leave()
        return try outcome.get()
    }

    /// Enters the step `step`, and returns its marker; stops the program if it is `uncached` and
    /// recurses.
    private func enter(_ step: Step, uncached: Bool) -> StepMarker {
        let serial = state.withLock { state in
            state.lastSerial += 1
            state.stack.push { step }
            state.serials.append(state.lastSerial)
            if uncached { state.stack.stopIfRecursing() }
            return state.lastSerial
        }
        return StepMarker(agent: self, serial: serial)
    }

    /// Leaves the step entered last.
    private func leave() {
        state.withLock { state in
            state.stack.pop()
            state.serials.removeLast()
        }
    }

    /// How many steps are under way in this task.
    var depth: Int { state.withLock { $0.stack.depth } }

    /// Whether a call made now is made directly by the step at `index` of `agent`'s stack: the step
    /// that encloses it is that one, or a step above it that no provider's step lies between, such
    /// as a handle's.
    static func isCalledDirectly(byStepAt index: Int, of agent: TaskAgent) -> Bool {
        guard let step = enclosingStep, step.agent === agent else { return false }
        return agent.state.withLock { state in
            guard let top = state.serials.lastIndex(of: step.serial) else { return false }
            return state.stack.isCalledDirectly(byStepAt: index, top: top)
        }
    }

    /// The step already on this task's stack that is the same as `step`, if any.
    func enclosing(_ step: Step) -> Step? {
        state.withLock { state in state.stack.lastIndex(ofSameAs: step).map { state.stack[$0] } }
    }

    override func steps(from step: Step) -> [Step] { state.withLock { $0.stack.all(from: step) } }

}

extension TaskLocal {
    /// Runs `body`, on `isolation`, with the value bound to `value`, and returns how it ended:
    /// `withValue(_:operation:isolation:)` for an operation whose error type `Failure` that method's
    /// `rethrows` would erase.
    func outcome<Success, Failure: Error>(
        _ value: Value, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> Success
    ) async -> Result<Success, Failure> {
        await withValue(value) {
            do throws(Failure) { return .success(try await body()) } catch { return .failure(error) }
        }
    }
}

/// Test hooks for task agents.
package enum TaskAgents {
    /// The agent bound for the current task, if any, for tests that hold it weakly to check that
    /// agents are released.
    package static var current: AnyObject? { TaskAgent.current }
}
