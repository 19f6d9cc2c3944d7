extension _ModuleOwner where Self: AnyModule {
    /// Calls `provider` so that every cached provider it calls directly (`single`,
    /// `single(key:)` or `weak`) builds a new instance and caches nothing: a fresh copy, while the
    /// cached instance stays in place for everyone else.
    ///
    /// ```swift
    /// let scratch = app.data.fresh { $0.store() }  // a new Store; app.data.store() is unchanged
    /// ```
    ///
    /// The new instance's dependencies resolve as usual, cached ones included, and its
    /// `configure:` closure runs. Only the calls that `provider` makes itself on the calling thread
    /// are affected. A fresh copy of a provider with a `close:` action is the caller's to close:
    /// ``Component/shutdown(file:line:)`` closes only what the component keeps.
    ///
    /// - Parameter provider: Calls the providers to build afresh, on the module it receives.
    /// - Returns: What `provider` returns.
    public func fresh<T, Failure: Error>(_ provider: (Self) throws(Failure) -> T) throws(Failure) -> T {
        let request = FreshRequest(module: self, depth: ResolutionContext.current.depth)
        storage.addAttention(1)
        defer {
            request.close()
            storage.addAttention(-1)
        }
        return try Self.$freshRequest.withValue(request) {
            Result { () throws(Failure) in try provider(self) }
        }
        .get()
    }

    /// Calls `provider`, which may await, so that every cached provider it calls directly, async
    /// (`single`) or not, builds a new instance and caches nothing: the async form of
    /// ``fresh(_:)``.
    ///
    /// ```swift
    /// let scratch = await app.data.fresh { await $0.database() }  // app.data.database() is unchanged
    /// ```
    ///
    /// Only the calls that `provider` makes itself in the calling task are affected, not those of the
    /// tasks it starts. As for any async `configure:` cycle (see the async `single`), a fresh copy
    /// whose `configure:` asks for the other end of a cycle that nothing has cached yet asks for it
    /// from that end: resolve the cached instance first.
    ///
    /// - Parameters:
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - provider: Calls the providers to build afresh, on the module it receives.
    /// - Returns: What `provider` returns.
    public func fresh<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ provider: (sending Self) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        // No `defer`: Swift 6.0 crashes on one in a function with an `isolated` parameter.
        // Async code runs inside no synchronous step of its thread: depth zero.
        let request = FreshRequest(module: self, depth: 0)
        storage.addAttention(1)
        // The module goes to the closure as a value of its own region, which the closure may send
        // to a nonisolated provider (see `Handed`).
        let module = Handed(self)
        let outcome = await Self.$freshRequest.outcome(request) { () async throws(Failure) in
            try await provider(module.value)
        }
        request.close()
        storage.addAttention(-1)
        return try outcome.get()
    }
}

extension AnyModule {
    /// The `fresh(_:)` under way in this task or on this thread, if any. A task-local value, which a
    /// thread outside any task keeps too, and which a task that the closure starts inherits; it
    /// answers only the calls its closure makes itself (see `FreshRequest`).
    @TaskLocal static var freshRequest: FreshRequest?

    /// Whether a call of one of this module's cached providers made now, at `depth` on its thread, is
    /// made directly by the closure of the `fresh(_:)` under way: its instance is built anew and
    /// cached nowhere.
    func isFresh(at depth: Int) -> Bool { Self.freshRequest?.answers(self, at: depth) ?? false }
}

/// A `fresh(_:)` call: which calls it answers, and whether it still runs.
///
/// It answers a call of its module's cached providers made directly by its closure: at the depth of
/// the closure on its thread (not from inside a provider the closure called), in the closure's own
/// task, under the same async step, and only until `fresh(_:)` returns. A task that the closure
/// starts inherits the request, and may outlive it: the request is closed then, so that no later
/// task answers it, even one that runs where the closure's task ran.
final class FreshRequest: Sendable {
    /// The module whose providers it answers, compared only; `fresh(_:)` keeps it alive while the
    /// request is open.
    private let module: ObjectIdentifier
    /// How many synchronous steps deep the closure runs on its thread: zero in async code.
    private let depth: Int
    /// The task that runs the closure, by the hash of its address (see `TaskAgent.currentTask`),
    /// compared only while the request is open, when that task is alive: no other running task has
    /// its address.
    private let task: Int
    /// The async step under which the closure runs, if any, by its agent and number.
    private let step: TaskAgent.StepMarker?
    /// Whether `fresh(_:)` still runs, guarded by its lock.
    private let isOpen = Locked<Bool>.make(true)

    init(module: AnyModule, depth: Int) {
        self.module = ObjectIdentifier(module)
        self.depth = depth
        task = TaskAgent.currentTask
        step = TaskAgent.enclosingStep
    }

    /// Whether a call of one of `module`'s cached providers made now, at `depth` on its thread, is
    /// made directly by the request's closure.
    func answers(_ module: AnyModule, at depth: Int) -> Bool {
        guard ObjectIdentifier(module) == self.module, depth == self.depth, TaskAgent.currentTask == task
        else { return false }
        let enclosing = TaskAgent.enclosingStep
        guard enclosing?.agent === step?.agent, enclosing?.serial == step?.serial else { return false }
        return isOpen.withLock { $0 }
    }

    /// Ends the request: `fresh(_:)` returns.
    func close() { isOpen.withLock { $0 = false } }
}
