import CDirk

extension Component {
    /// Closes every instance the component built with a close action, and then serves nothing
    /// more.
    ///
    /// ```swift
    /// final class StorageModule: Module<AppComponent>, @unchecked Sendable {
    ///     func database() async throws -> Database {
    ///         try await single { try await Database.open() } close: { try await $0.close() }
    ///     }
    /// }
    ///
    /// try await app.shutdown()  // where the application stops
    /// ```
    ///
    /// In order, it:
    /// 1. refuses every provider call that no build under way makes: such a call stops the program
    ///    with a message that says the component was shut down;
    /// 2. waits for the builds under way to finish, with the provider calls they make;
    /// 3. runs each close action once, in the reverse order of the builds: an instance closes
    ///    before the instances it was built from (repositories before the pool they use);
    /// 4. throws ``ShutdownError`` with every error the close actions threw, after running them all.
    ///
    /// Call it once the work that uses the component has ended, as a server does after it has
    /// answered its last request: a provider call that starts at the very moment `shutdown()` does
    /// may still build, after the close actions ran. Calls of `shutdown()` made at the same time
    /// wait for that one shutdown and get its outcome, as does every later call. It closes what this component built, nothing else: a child component shuts down
    /// on its own, and its parents' instances are theirs. ``reset(file:line:)`` does not close what
    /// it drops, since it cannot wait: a dropped instance stays open until `shutdown()` closes it.
    ///
    /// Calling it from inside a provider or `configure:` closure of this component stops the
    /// program, as it would wait for itself. A component released with instances to close and
    /// without `shutdown()` says so on standard error, once, in debug builds.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Throws: ``ShutdownError`` when close actions threw.
    public func shutdown(file: StaticString = #fileID, line: UInt = #line) async throws(ShutdownError) {
        if let frame = Component.stepUnderWay(in: identity) {
            Diagnostics.shutdownDuringResolution(
                component: type(of: self), provider: frame.name, file: file, line: line)
        }
        let shutdown = core.withLock { state in
            if let shutdown = state.shutdown { return shutdown }
            core.markShutDown(in: &state)
            let shutdown = Task { await self.closeAll() }
            state.shutdown = shutdown
            return shutdown
        }
        let failures = await shutdown.value
        if !failures.isEmpty { throw ShutdownError(component: "\(type(of: self))", failures: failures) }
    }

    /// A step of the component whose identity is `identity` that this thread's resolution or this
    /// task's is running, if any.
    static func stepUnderWay(in identity: UInt) -> Frame? {
        let context = ResolutionContext.current
        return context.stack.all.first { $0.component == identity } ?? context.heldBuild(
            ofComponent: identity)
            ?? TaskAgent.stepUnderWay(in: identity)
    }

    /// Waits for the builds under way, then runs the close actions, newest first, until none is
    /// left: a build that finished meanwhile adds its own.
    private func closeAll() async -> [ShutdownError.Failure] {
        var failures: [ShutdownError.Failure] = []
        while true {
            // A build runs user code for as long as it takes, and says nothing when it ends, so the
            // wait looks every millisecond, without blocking a thread.
            while hasBuildUnderWay { try? await Task.sleep(nanoseconds: 1_000_000) }
            let actions = core.withLock { state in
                defer { state.closeActions = [] }
                return state.closeActions
            }
            if actions.isEmpty { return failures }
            for action in actions.reversed() {
                do { try await action.close() } catch {
                    failures.append(.init(provider: action.provider, error: error))
                }
            }
        }
    }

    /// Whether a build of one of the instances the component caches is under way. The cells are
    /// asked after the component's lock, which is never taken inside theirs.
    private var hasBuildUnderWay: Bool {
        var building = false
        core.withLock { $0.caches }.forEachElement { building = building || $0.hasBuildUnderWay }
        return building
    }

    /// Says, in a debug build, that the component goes without `shutdown()` while it has instances
    /// to close. Call it from `deinit`.
    func warnIfReleasedOpen(_ actions: [CloseAction]) {
        #if DEBUG
            // A debug build's warning, not a trap: the instances still go.
            guard !actions.isEmpty else { return }
            let message = Diagnostics.releasedWithoutShutdown(
                component: type(of: self), providers: actions.map(\.provider))
            dirk_write_standard_error(message)
        #endif
    }
}

extension AnyModule {
    /// Refuses the provider call whose step is `frame` after its component began to shut down,
    /// unless a build under way makes it. The pipelines call it when the module has attention.
    func refuseAfterShutdown(_ frame: Frame) {
        guard componentCore.isShutDown, Component.stepUnderWay(in: frame.component) == nil else { return }
        Diagnostics.calledAfterShutdown(provider: frame.name, component: componentType, site: frame.site)
    }

    /// Whether a provider of this module called now makes a `fresh` copy, which is cached nowhere
    /// and is its caller's to close.
    @usableFromInline var isFreshCall: Bool {
        ResolutionContext.current.isFreshRequest(for: ObjectIdentifier(self))
    }

    /// Makes the component run `close`, which closes an instance that the provider at `site`
    /// returning `type` built, at `shutdown()`, after the instances built after it.
    @usableFromInline func addCloseAction(
        site: ProviderSite, type: Any.Type, _ close: @escaping @Sendable () async throws -> Void
    ) {
        let provider = providerFrame(.single, site: site, returning: type).name
        componentCore.withLock { $0.closeActions.append(CloseAction(provider: provider, close: close)) }
    }
}

/// How one instance built with a close action is closed.
struct CloseAction {
    /// The provider that built it, as messages name it.
    let provider: String
    let close: @Sendable () async throws -> Void
}

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
