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
final class TaskAgent: BuildAgent, @unchecked Sendable {
    @TaskLocal static var current: TaskAgent?

    /// The task the agent acts for, compared only.
    let task: UInt
    /// The agent the task inherited when it made this one, whose steps may still be under way
    /// while this task runs; nil for an agent that began a resolution.
    let inherited: TaskAgent?
    // `steps` is written only by the agent's own task, read by others to describe a cycle.
    private let state: Locked<State>

    private struct State {
        var steps: [Frame] = []
        /// The `scoped` instances of the resolution.
        var scopes: ScopeStore
        /// Whether this agent ends `scopes`: it began the resolution, or opened a scope of its own
        /// when the one it shared ended.
        var ownsScopes: Bool
    }

    private init(task: UInt, inherited: TaskAgent?, scopes: ScopeStore, ownsScopes: Bool) {
        self.task = task
        self.inherited = inherited
        state = .make(State(scopes: scopes, ownsScopes: ownsScopes))
    }

    /// The `scoped` instances of the resolution.
    var scopes: ScopeStore { state.withLock { $0.scopes } }

    /// The current task's agent: the one bound for this task, or a new one (and whether it is new,
    /// in which case the caller binds it with `TaskAgent.$current.withValue`).
    static func forCurrentTask() -> (agent: TaskAgent, isNew: Bool) {
        let task = CurrentTask.identity
        if let current, current.task == task {
            current.openOwnScopeIfEnded()
            return (current, false)
        }
        if let current, !current.scopes.hasEnded {
            // A child task of a resolution under way: its own agent, the resolution's scope.
            let agent = TaskAgent(task: task, inherited: current, scopes: current.scopes, ownsScopes: false)
            return (agent, true)
        }
        return (TaskAgent(task: task, inherited: nil, scopes: ScopeStore.make(), ownsScopes: true), true)
    }

    /// Opens a scope of the agent's own if the one it shares has ended.
    private func openOwnScopeIfEnded() {
        state.withLock { state in
            guard state.scopes.hasEnded else { return }
            state.scopes = ScopeStore.make()
            state.ownsScopes = true
        }
    }

    /// The outermost step, in the component whose identity is `component`, of the current task's
    /// agent or of an agent it inherited, if any is under way: a provider of that component that
    /// this task runs in, or that started this task (a child task, or an unstructured `Task { }`
    /// while that provider runs).
    static func stepUnderWay(in component: UInt) -> Frame? {
        var agent = current
        while let candidate = agent {
            if let step = candidate.state.withLock({ $0.steps.first { $0.component == component } }) {
                return step
            }
            agent = candidate.inherited
        }
        return nil
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

    /// Ends the agent's scope, if it owns it.
    private func endOwnScope() {
        let owned = state.withLock { $0.ownsScopes ? $0.scopes : nil }
        owned?.end()
    }

    /// Runs `body` as the step `frame` of this task.
    func run<Result, Failure: Error>(
        _ frame: Frame, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        state.withLock { $0.steps.append(frame) }
        defer { state.withLock { _ = $0.steps.popLast() } }
        return try await body()
    }

    /// The step already on this task's stack that is the same as `frame`, a handle's, with no
    /// caching provider's build above it, if any: a call of the handle that would recurse without
    /// end (see `ResolutionContext.enterHandle`).
    func enclosingHandle(_ frame: Frame) -> Frame? {
        state.withLock { state in
            let stack = state.steps
            guard let index = stack.lastIndex(where: { $0.isSame(as: frame) }),
                !stack[(index + 1)...].contains(where: \.isCachingBuild)
            else { return nil }
            return stack[index]
        }
    }

    /// The step already on this task's stack that is the same as `frame`, if any.
    func enclosing(_ frame: Frame) -> Frame? {
        state.withLock { $0.steps.last { $0.isSame(as: frame) } }
    }

    override func steps(from frame: Frame) -> [Frame] {
        let stack = state.withLock { $0.steps }
        let first = stack.lastIndex { $0.isSame(as: frame) } ?? stack.endIndex
        return Array(stack[first...])
    }
}
