/// One task's part in an async resolution: its agent in the wait graph, its steps, and the `scoped`
/// instances of the resolution it belongs to.
///
/// An async resolution begins when a task calls an async provider outside any other, and ends when
/// that call returns. Its tasks (the one that began it, and the child tasks it starts) share its
/// `ScopeStore`. Each task has its own agent, found through a task-local value that child tasks
/// inherit: a task that finds an inherited agent of another task makes its own, so that a task
/// never mistakes a build of its parent for one of its own, and an unstructured `Task { }` that
/// asks for what its parent is building simply waits for it.
///
/// A task keeps its agent, and so its steps and its place in the wait graph, until its outermost
/// provider call returns, even when the resolution whose scope it shares ends first (an
/// unstructured `Task { }` that outlives the provider that started it): it then opens a scope of
/// its own for the rest of that call.
///
/// Each step binds a task-local marker, so that a task started inside the step (`async let`, a
/// task group, `Task { }`) knows which step of which agent started it, and whether that step still
/// runs.
final class TaskAgent: BuildAgent, @unchecked Sendable {
    @TaskLocal static var current: TaskAgent?
    /// The innermost async step that runs the caller or started its task.
    @TaskLocal static var enclosingStep: StepMarker?

    /// A step of an agent, as the tasks started inside it remember it.
    struct StepMarker: Sendable {
        let agent: TaskAgent
        let serial: UInt64
    }

    /// A step that started a task, or the task that started that one, and so on, as an agent
    /// remembers it: weakly, so that agents do not keep each other alive in a chain that grows
    /// with every task that starts another (a provider whose task calls it again, generation after
    /// generation). While the step runs, its agent is alive (the step is a call of `run` on it);
    /// an agent that is gone runs no step, and is skipped.
    private struct StarterStep: @unchecked Sendable {
        weak var agent: TaskAgent?
        let serial: UInt64
    }

    /// The task the agent acts for, as `CurrentTask.identity` tells it, compared only while the
    /// agent is under way.
    let task: Int
    /// The steps that started this agent's task, nearest first: the step in which it was
    /// started, the step in which that step's task was started, and so on, each while its agent
    /// is alive. Each agent keeps the whole line, so that a walk up it passes agents that are
    /// gone (a task in the middle that ended) and still reaches a step that runs further up.
    private let starters: [StarterStep]
    /// Every field of `State` is guarded by this lock. `steps` is written only by the agent's own
    /// task, and read by others to describe a cycle.
    private let state: Locked<State>

    private struct State {
        /// The steps this task runs, outermost first, each with its serial.
        var steps: [(frame: Frame, serial: UInt64)] = []
        var lastSerial: UInt64 = 0
        /// The `scoped` instances of the resolution: made on first need (a `scoped` provider, a
        /// synchronous resolution inside this one, a child task), so that a resolution that asks
        /// for none makes none. Nil only in an agent that owns its scope.
        var scopes: ScopeStore?
        /// Whether this agent ends `scopes`, once made: it began the resolution, or opened a scope
        /// of its own when the one it shared ended.
        var ownsScopes: Bool
        /// Whether the agent's outermost call is under way: only then is its task running, so that
        /// `task` tells it apart from a later task at the same address.
        var isUnderWay = true
    }

    private init(task: Int, startedIn: StepMarker?, scopes: ScopeStore?, ownsScopes: Bool) {
        self.task = task
        starters =
            startedIn.map { step in
                [StarterStep(agent: step.agent, serial: step.serial)]
                    + step.agent.starters.filter { $0.agent != nil }
            } ?? []
        state = .make(State(scopes: scopes, ownsScopes: ownsScopes))
    }

    /// The `scoped` instances for a call of the agent's task under way: the resolution's, or the
    /// agent's own, opened now, if the resolution's ended meanwhile (in a `Task { }` that outlives
    /// it), so that no instance is kept by a scope that has ended.
    var scopesOfCallUnderWay: ScopeStore {
        if let scopes = scopesIfUnderWay() { return scopes }
        // Not reached: the agent's task calls only while its outermost call is under way. An
        // ended store keeps no instance.
        if let scopes = state.withLock({ $0.scopes }) { return scopes }
        let ended = ScopeStore.make()
        ended.end()
        return ended
    }

    /// Whether the agent's outermost call is under way.
    private var isUnderWay: Bool { state.withLock { $0.isUnderWay } }

    /// The current task's agent: the one bound for this task, or a new one (and whether it is new,
    /// in which case the caller binds it with `TaskAgent.$current.withValue`). A new agent of a
    /// task that begins a resolution has no scope yet: it makes one on first need.
    static func forCurrentTask() -> (agent: TaskAgent, isNew: Bool) {
        let task = CurrentTask.identity
        if let current, current.task == task, current.isUnderWay { return (current, false) }
        let startedIn = enclosingStep
        if let current, let shared = current.sharedScopes {
            // A child task of a resolution under way: its own agent, the resolution's scope (made
            // now in the parent's agent if it had none yet, so that parent and children share
            // one).
            return (TaskAgent(task: task, startedIn: startedIn, scopes: shared, ownsScopes: false), true)
        }
        return (TaskAgent(task: task, startedIn: startedIn, scopes: nil, ownsScopes: true), true)
    }

    /// The scope that a synchronous resolution of the current task shares, if any: its agent's, or,
    /// in a task without an agent of its own, that of the agent it inherited.
    ///
    /// Outside any task there is none: every agent is bound with `await $current.withValue`, inside
    /// a task, so a thread that runs no task is not asked for the task-local value, the larger part
    /// of a synchronous `scoped` call's cost. (Speed only.)
    static var scopesOfCurrentTask: ScopeStore? {
        guard CurrentTask.isRunning else { return nil }
        return current?.sharedScopes
    }

    /// The scope that the agent's task, and the tasks that inherit the agent, share: while the
    /// agent's outermost call is under way, its scope, opened anew if the one it shared has ended
    /// (so that the child tasks of a task that outlived its resolution share one scope with it);
    /// after that, the scope it had, until it ends.
    private var sharedScopes: ScopeStore? {
        if let scopes = scopesIfUnderWay() { return scopes }
        // An agent that never made its scope ended none: nothing to share.
        guard let scopes = state.withLock({ $0.scopes }) else { return nil }
        return scopes.hasEnded ? nil : scopes
    }

    /// The agent's scope, if its outermost call is under way: made now if it has none yet; a
    /// scope of its own, opened now, if the one it shared has ended. Made under the agent's lock,
    /// so that the tasks that ask at once get one store, and `endOwnScope` ends every store made
    /// before it, while none is made after it.
    private func scopesIfUnderWay() -> ScopeStore? {
        state.withLock { state in
            guard state.isUnderWay else { return nil }
            if let scopes = state.scopes, !scopes.hasEnded { return scopes }
            let made = ScopeStore.make()
            state.scopes = made
            state.ownsScopes = true
            return made
        }
    }

    /// The outermost step in the component whose identity is `component` among the async steps
    /// that run the caller or started its task, and the steps that started those steps' tasks, as
    /// long as they run: a provider of that component that this task runs in, or that started this
    /// task and has not returned.
    static func stepUnderWay(in component: UInt) -> Frame? {
        guard let step = enclosingStep else { return nil }
        if let frame = step.agent.outermostStep(in: component, enclosing: step.serial) { return frame }
        for starter in step.agent.starters {
            if let frame = starter.agent?.outermostStep(in: component, enclosing: starter.serial) {
                return frame
            }
        }
        return nil
    }

    /// The outermost step in `component` among the step whose serial is `serial` and the steps
    /// under it, if that step still runs.
    private func outermostStep(in component: UInt, enclosing serial: UInt64) -> Frame? {
        state.withLock { state in
            guard let index = state.steps.lastIndex(where: { $0.serial == serial }) else { return nil }
            return state.steps[...index].first { $0.frame.component == component }?.frame
        }
    }

    /// Runs `body` with the current task's agent, bound for the tasks it starts; ends the
    /// resolution's `scoped` instances when this call began the resolution, or opened a scope.
    static func withCurrent<Result, Failure: Error>(
        _ body: (TaskAgent) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let (agent, isNew) = forCurrentTask()
        guard isNew else { return try await body(agent) }
        let result: Swift.Result<Result, Failure> = await $current.withValue(agent) {
            do throws(Failure) {
                return .success(try await body(agent))
            } catch {
                return .failure(error)
            }
        }
        agent.endOwnScope()
        return try result.get()
    }

    /// Ends the agent's outermost call, and its scope if it owns it and made it.
    private func endOwnScope() {
        let owned = state.withLock { state in
            state.isUnderWay = false
            return state.ownsScopes ? state.scopes : nil
        }
        owned?.end()
    }

    /// Runs `body` as the step `frame` of this task, marked for the tasks it starts.
    func run<Result, Failure: Error>(
        _ frame: Frame, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let serial = state.withLock { state in
            state.lastSerial += 1
            state.steps.append((frame, state.lastSerial))
            return state.lastSerial
        }
        defer {
            _ = state.withLock { state in state.steps.removeLast() }
        }
        let result: Swift.Result<Result, Failure> = await Self.$enclosingStep.withValue(
            StepMarker(agent: self, serial: serial)
        ) {
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The step already on this task's stack that is the same as `frame`, a handle's, with no
    /// caching provider's build above it, if any: a call of the handle that would recurse without
    /// end (see `ResolutionContext.enterHandle`).
    func enclosingHandle(_ frame: Frame) -> Frame? {
        state.withLock { state in
            let stack = state.steps
            guard let index = stack.lastIndex(where: { $0.frame.isSame(as: frame) }),
                !stack[(index + 1)...].contains(where: { $0.frame.isCachingBuild })
            else { return nil }
            return stack[index].frame
        }
    }

    /// The step already on this task's stack that is the same as `frame`, if any.
    func enclosing(_ frame: Frame) -> Frame? {
        state.withLock { $0.steps.last { $0.frame.isSame(as: frame) }?.frame }
    }

    override func steps(from frame: Frame) -> [Frame] {
        let stack = state.withLock { $0.steps }
        let first = stack.lastIndex { $0.frame.isSame(as: frame) } ?? stack.endIndex
        return stack[first...].map(\.frame)
    }
}

/// Test hooks for task agents.
package enum TaskAgents {
    /// The agent bound for the current task, if any, for tests that hold it weakly to check that
    /// agents are released.
    package static var current: AnyObject? { TaskAgent.current }
}

/// The task that runs the caller, through the concurrency library's `withUnsafeCurrentTask`.
enum CurrentTask {
    /// The current task's hash value, which tells it from every other running task: the hash of
    /// its address, which is unique among running tasks, with the process's seed. (Two running
    /// tasks share a hash value with a chance of one in 2^64.) An agent compares it only while its
    /// own task runs (while its outermost call is under way), so a reused address is never taken
    /// for its old task. Zero outside any task.
    static var identity: Int { withUnsafeCurrentTask { $0?.hashValue ?? 0 } }

    /// Whether the caller runs in a task.
    static var isRunning: Bool { withUnsafeCurrentTask { $0 != nil } }
}
