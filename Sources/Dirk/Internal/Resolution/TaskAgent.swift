/// One task's part in an async resolution: its agent in the wait graph, its steps, and the `scoped`
/// instances of the resolution it belongs to.
///
/// An async resolution begins when a task calls an async provider outside any other, and ends when
/// that call returns. Its tasks (the one that began it, and the child tasks it starts) share its
/// `ScopeStore`. Each task has its own agent, found through a task-local value that child tasks
/// inherit: a task that finds an inherited agent of another task makes its own, so that a task
/// never mistakes a build of its parent for one of its own, and an unstructured `Task { }` that
/// asks for what its parent is building simply waits for it.
final class TaskAgent: BuildAgent, @unchecked Sendable {
    @TaskLocal static var current: TaskAgent?

    /// The task the agent acts for, compared only.
    let task: UInt
    /// The `scoped` instances of the resolution.
    let scopes: ScopeStore
    /// Whether this agent began the resolution, and so ends its scope.
    let beganResolution: Bool
    // `steps` is written only by the agent's own task, read by others to describe a cycle.
    private let stack = Locked<[Frame]>.make([])

    private init(task: UInt, scopes: ScopeStore, beganResolution: Bool) {
        self.task = task
        self.scopes = scopes
        self.beganResolution = beganResolution
    }

    /// The current task's agent: the one bound for this task, or a new one (and whether it is new,
    /// in which case the caller binds it with `TaskAgent.$current.withValue`).
    static func forCurrentTask() -> (agent: TaskAgent, isNew: Bool) {
        let task = CurrentTask.identity
        if let current, current.task == task, !current.scopes.hasEnded { return (current, false) }
        if let current, !current.scopes.hasEnded {
            // A child task of a resolution under way: its own agent, the resolution's scope.
            return (TaskAgent(task: task, scopes: current.scopes, beganResolution: false), true)
        }
        return (TaskAgent(task: task, scopes: ScopeStore.make(), beganResolution: true), true)
    }

    /// The current task's own agent: nil outside any async resolution, and in a task that only
    /// inherited another task's agent.
    static var ofCurrentTask: TaskAgent? {
        // Its steps tell whether it is inside a provider, even after the resolution whose scope it
        // shares has ended (an unstructured `Task` that outlives it).
        guard let current, current.task == CurrentTask.identity else { return nil }
        return current
    }

    /// Runs `body` with the current task's agent, bound for the tasks it starts; ends the
    /// resolution's `scoped` instances when this call began the resolution.
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
        if agent.beganResolution { agent.scopes.end() }
        return try result.get()
    }

    /// Runs `body` as the step `frame` of this task.
    func run<Result, Failure: Error>(
        _ frame: Frame, _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        stack.withLock { $0.append(frame) }
        defer { stack.withLock { _ = $0.popLast() } }
        return try await body()
    }

    /// The outermost step on this task's stack that belongs to the component whose identity is
    /// `component`, if any.
    func outermostStep(in component: UInt) -> Frame? {
        stack.withLock { $0.first { $0.component == component } }
    }

    /// The step already on this task's stack that is the same as `frame`, a handle's, with no
    /// caching provider's build above it, if any: a call of the handle that would recurse without
    /// end (see `ResolutionContext.enterHandle`).
    func enclosingHandle(_ frame: Frame) -> Frame? {
        stack.withLock { stack in
            guard let index = stack.lastIndex(where: { $0.isSame(as: frame) }),
                !stack[(index + 1)...].contains(where: \.isCachingBuild)
            else { return nil }
            return stack[index]
        }
    }

    /// The step already on this task's stack that is the same as `frame`, if any.
    func enclosing(_ frame: Frame) -> Frame? {
        stack.withLock { $0.last { $0.isSame(as: frame) } }
    }

    override func steps(from frame: Frame) -> [Frame] {
        let stack = stack.withLock { $0 }
        let first = stack.lastIndex { $0.isSame(as: frame) } ?? stack.endIndex
        return Array(stack[first...])
    }
}
