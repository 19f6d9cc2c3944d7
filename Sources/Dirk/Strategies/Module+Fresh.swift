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
        storage.addAttention(1)
        defer { storage.addAttention(-1) }
        return try Self.$freshRequest.withValue(freshKey(at: ResolutionContext.current.depth)) {
            Result { () throws(Failure) in try provider(self) }
        }.get()
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
        storage.addAttention(1)
        // Async code runs inside no synchronous step of its thread: depth zero.
        // The module goes to the closure as a value of its own region, which the closure may send
        // to a nonisolated provider (see `SharedModule`).
        let module = SharedModule(module: self)
        let outcome = await Self.$freshRequest.outcome(freshKey(at: 0)) { () async throws(Failure) in
            try await provider(module.module)
        }
        storage.addAttention(-1)
        return try outcome.get()
    }
}

extension AnyModule {
    /// The request of the `fresh(_:)` under way in this task or on this thread: its module, the depth
    /// of the thread's steps, its task, and the async step, by its agent and number, where it was
    /// called. Bound as a task-local value, which a thread outside any task keeps too, and which a
    /// task that the closure starts inherits, but answers only in the closure's own task. A task is
    /// told by its address, unique among running tasks: a task started, through a `Task { }` of the
    /// closure, after the closure's own task has ended may get that address, and a direct call of
    /// this module's providers there, while something else sends them down the pipeline (a trace, a
    /// recording), would answer the old request: the request carries no flag that `fresh` closes
    /// when it returns.
    @TaskLocal static var freshRequest: (ObjectIdentifier, Int, Int, ObjectIdentifier?, UInt64?)?

    /// The request of a `fresh(_:)` of this module called now at `depth` on its thread, or, compared
    /// with the one under way, whether a call of one of this module's cached providers made now is
    /// made directly by that `fresh(_:)`'s closure: its instance is built anew and cached nowhere.
    func freshKey(at depth: Int) -> (ObjectIdentifier, Int, Int, ObjectIdentifier?, UInt64?) {
        let step = TaskAgent.enclosingStep
        let agent = step?.agent.map(ObjectIdentifier.init)
        return (ObjectIdentifier(self), depth, TaskAgent.currentTask, agent, step?.serial)
    }

    /// Whether a call of one of this module's cached providers made now, at `depth` on its thread,
    /// answers the `fresh(_:)` under way (see `freshKey(at:)`).
    func isFresh(at depth: Int) -> Bool { Self.freshRequest.map { $0 == freshKey(at: depth) } ?? false }
}
