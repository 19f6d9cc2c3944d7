extension Component {
    /// Closes every instance the component built with a close action, and then serves nothing
    /// more.
    ///
    /// ```swift
    /// final class StorageModule: Module<AppComponent> {
    ///     func database() async throws -> Database {
    ///         try await single { try await Database.open() } close: { try await $0.close() }
    ///     }
    /// }
    ///
    /// try await app.shutdown()  // where the application stops
    /// ```
    ///
    /// Every provider call, handle and injection that may build in the component passes through the
    /// component's gate, and `shutdown()` closes it. In order, it:
    /// 1. refuses every call that begins from now on: such a call stops the program with a message
    ///    that says the component was shut down. A call of a resolution that has entered the
    ///    component goes on, sync or async: a resolution is an outermost provider call with every
    ///    call it makes, on its thread, through other components and handles, and in the tasks
    ///    that its async steps start, while the step that started them runs; a call that returned
    ///    an instance the component had built before shutdown began entered nothing. A `Task { }`
    ///    that outlives the step that started it, and calls a provider later, starts a resolution of
    ///    its own, which is refused;
    /// 2. waits, without blocking a thread, until no call is left in the gate: until every
    ///    resolution that entered the component has ended;
    /// 3. runs each close action once, in the reverse order of the builds: an instance closes before
    ///    the instances it was built from (repositories before the pool they use);
    /// 4. throws ``ShutdownError`` with every error the close actions threw, after running them all.
    ///
    /// When it returns, every instance the component built with a close action has been closed,
    /// exactly once, whatever raced it. Calls of `shutdown()` made at the same time wait for that one
    /// shutdown and get its outcome, as does every later call. It closes what this component built,
    /// nothing else: a child component shuts down on its own, and its parents' instances are theirs.
    /// ``reset(file:line:)`` does not close what it drops, since it cannot wait: a dropped instance
    /// stays open until `shutdown()` closes it. A `fresh` copy is its caller's to close.
    ///
    /// Calling it from inside a provider, `configure:` closure or close action of this component, or
    /// in a resolution that has entered this component through another, stops the program, as it
    /// would wait for itself; so does calling it in a task that such a resolution started, while
    /// the step that started it runs. A `Task.detached` inherits nothing from the resolution, so
    /// Dirk cannot tell that it belongs to it: a resolution that awaits one that calls `shutdown()`
    /// waits forever. A component released with instances to close and without `shutdown()` says so
    /// on standard error, once, in debug builds.
    /// ``withShutdown(isolation:_:file:line:)`` shuts a component down when the code that uses it ends.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Throws: ``ShutdownError`` when close actions threw.
    public func shutdown(file: StaticString = #fileID, line: UInt = #line) async throws(ShutdownError) {
        if let closing = ClosingComponent.current, closing.identity == identity {
            Diagnostics.shutdownInCloseAction(
                component: type(of: self), provider: closing.provider, at: (file, line))
        }
        checkNoStepUnderWay("shutdown()", file: file, line: line)
        let shutdown = storage.withLock { state in
            if let shutdown = state.extras?.shutdown { return shutdown }
            // Cached reads take the pipeline from now on, where the gate refuses them.
            storage.addAttention(1)
            storage.withGate { $0.close() }
            let shutdown = Task { await self.closeAll() }
            state.withExtras { $0.shutdown = shutdown }
            return shutdown
        }
        // Asked once shutdown has begun: a part of the caller's resolution that ends from now on
        // leaves the component instead of handing it to the resolution (`TaskAgent.adopt`).
        if let step = TaskAgent.stepOfResolution(thatEntered: identity) {
            Diagnostics.shutdownAwaitedByResolution(step, component: type(of: self), at: (file, line))
        }
        let failures = await shutdown.value
        if !failures.isEmpty { throw ShutdownError(component: "\(type(of: self))", failures: failures) }
    }

    /// Stops the program if this thread's resolution or this task's is running a step of the
    /// component: `call`, `reset()` or `shutdown()`, would drop what the step uses, or wait for it.
    func checkNoStepUnderWay(_ call: String, file: StaticString, line: UInt) {
        // The steps of this thread's resolution and the builds it holds, then the steps of this
        // task's async resolution and of the tasks that started this one, while they run.
        let context = ResolutionContext.current
        // A held build is a provider's cached instance that the thread has and others do not yet.
        let held = context.record.holds.held.first { build in
            build.whileConfiguring && build.step.component == identity && build.step.kind == .provider
                && build.step.strategy.isCached
        }
        let onStack = context.stack.all.first { $0.component == identity }
        if let step = onStack ?? held?.step ?? TaskAgent.stepUnderWay(in: identity) {
            Diagnostics.calledDuringResolution(
                call, component: type(of: self), provider: step.name, at: (file, line))
        }
    }

    /// Waits until no call is left in the gate, then runs the close actions, newest first.
    private func closeAll() async -> [ShutdownError.Failure] {
        await withCheckedContinuation { continuation in
            // See `Gate.leave(_:)`: the last call out resumes it, after this lock; with none left, this does.
            storage.withLock { state in
                state.extras!.drained = continuation
                return storage.withGate { $0.isEmpty } ? state.extras!.drained.take() : nil
            }?.resume()
        }
        // No call is in, and none can come in: no build adds an action from now on.
        let actions = storage.withLock { $0.extras?.closeActions ?? [] }
        var failures: [ShutdownError.Failure] = []
        for (provider, close) in actions.reversed() {
            do {
                try await ClosingComponent.$current.withValue((identity, provider), operation: close)
            } catch { failures.append(.init(provider: provider, error: error)) }
        }
        return failures
    }

    /// Says, in a debug build, that the component goes without `shutdown()` while it has instances
    /// to close, naming each provider once. Call it from `deinit`, with the extras its release took.
    func warnIfReleasedOpen(_ extras: ComponentExtras) {
        #if DEBUG
        // A debug build's warning, not a trap: the instances still go. A shutdown ran the actions.
        guard extras.shutdown == nil, !extras.closeActions.isEmpty else { return }
        var named: Set<String> = []
        let names = extras.closeActions.map(\.provider).filter { named.insert($0).inserted }
        StandardError.write(Diagnostics.releasedWithoutShutdown(component: type(of: self), providers: names))
        #endif
    }
}

extension _ModuleOwner where Self: Component {
    /// Runs `body` with this component, then shuts the component down, whether `body` returned or
    /// threw: the structured form of ``Component/shutdown(file:line:)``, which a test or a server cannot forget.
    ///
    /// ```swift
    /// try await AppComponent().withShutdown { app in
    ///     try await serve(app)
    /// }  // app's database is closed here
    /// ```
    ///
    /// An error that `body` throws is rethrown after the shutdown, and takes precedence over the
    /// shutdown's own ``ShutdownError``, which is then dropped; when `body` returns, a
    /// ``ShutdownError`` is thrown instead of its result.
    ///
    /// - Parameters:
    ///   - body: The work that uses the component, run in the caller's isolation.
    ///   - isolation: The actor that `body` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or else ``ShutdownError``.
    @discardableResult public func withShutdown<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Self) async throws -> sending Result,
        file: StaticString = #fileID, line: UInt = #line
    ) async throws -> sending Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            try? await shutdown(file: file, line: line)
            throw error
        }
        try await shutdown(file: file, line: line)
        return result
    }

    /// ``withShutdown(isolation:_:file:line:)`` with `isolation` after `body`.
    @available(*, deprecated, renamed: "withShutdown(isolation:_:file:line:)")
    @_disfavoredOverload @discardableResult public func withShutdown<Result>(
        _ body: (Self) async throws -> sending Result, isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line
    ) async throws -> sending Result {
        // The body of `withShutdown(isolation:_:file:line:)`: Swift 6.0 refuses to pass `body` on.
        let result: Result
        do {
            result = try await body(self)
        } catch {
            try? await shutdown(file: file, line: line)
            throw error
        }
        try await shutdown(file: file, line: line)
        return result
    }
}

extension AnyModule {
    /// Makes the component run `close`, which closes an instance that the provider at `site`
    /// returning `type` built, at `shutdown()`, after the instances built after it.
    @usableFromInline func addCloseAction(
        site: ProviderSite, type: Any.Type, _ close: @escaping @Sendable () async throws -> Void
    ) {
        let provider = providerStep(.single, site: site, returning: type).name
        storage.withLock { $0.withExtras { $0.closeActions.append((provider, close)) } }
    }
}

/// How one instance built with a close action is closed: `close`; `provider`, the provider that
/// built it, as messages name it.
typealias CloseAction = (provider: String, close: @Sendable () async throws -> Void)

/// The errors that close actions threw during ``Component/shutdown(file:line:)``, which ran every
/// close action nevertheless.
public struct ShutdownError: Error, CustomStringConvertible {
    /// One close action that threw.
    public struct Failure: Sendable {
        /// The provider whose instance it was closing, as `StorageModule.database()`.
        public let provider: String
        /// What the close action threw.
        public let error: any Error
    }

    /// The type of the component that was shut down.
    public let component: String
    /// Every close action that threw, in the order they ran.
    public let failures: [Failure]

    /// Names the component and each failed provider with its error.
    public var description: String {
        let each = failures.map { "`\($0.provider)`: \($0.error)" }.joined(separator: "; ")
        return "Dirk: `\(component).shutdown()` ran every close action, and \(failures.count) threw: \(each)"
    }
}
