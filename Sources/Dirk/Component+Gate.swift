/// How a call fared at a component's gate (`ComponentStorage.enter(in:for:)`).
@usableFromInline enum Admission {
    /// The call is in: the resolution's entry of the component, new or made by an earlier call.
    case entered(Entered)
    /// The component's shutdown refused the call: the component, not entered.
    case refused(Component)

    /// The entry; stops the program, naming the call whose step is `step`, if the call was refused.
    @inlinable @inline(__always) func orStop(_ step: @autoclosure () -> Step) -> Entered {
        switch self {
        case .entered(let entry): return entry
        case .refused(let component): component.refuse(step())
        }
    }
}

extension LockBuffer: EnteredComponent where State == ComponentState {
    /// The one way into the component's gate: the component, entered by the resolution `context` (the
    /// thread's, or a task's part of an async one), counted in the gate and kept alive until the
    /// resolution ends, unless the resolution entered it already; or the component, not entered, if
    /// its shutdown refuses the call. Once shutdown has begun, only a call of an async resolution that
    /// has entered the component goes on, counted, so that shutdown waits for it. Stops the program,
    /// naming `step`'s provider or handle, if the component was released.
    @inlinable @inline(__always)
    final func enter(in context: some EnteringResolution, for step: @autoclosure () -> Step) -> Admission {
        if let entry = context.entry(of: address) { return .entered(entry) }
        let (component, admitted) = admit(for: step())
        return admitted ? .entered(context.enter(component, storage: self)) : .refused(component)
    }

    /// Runs `body` with the component, entered by the thread's resolution, or stops the program if
    /// the call is refused: a `transient`'s way in. (Speed only: written out in `runTransient`, the
    /// same code costs a `transient` about 45 instructions more, in retains and releases.)
    @inlinable @inline(__always) final func withEntered<Result>(
        in context: ResolutionContext, for step: @autoclosure () -> Step, _ body: (Component) throws -> Result
    ) rethrows -> Result {
        try enter(in: context, for: step()).orStop(step()).withObject {
            try body(Erasure.component($0, as: Component.self))
        }
    }

    /// The component, and whether its gate counted the call in (see `enter(in:for:)`).
    @usableFromInline @inline(never) final func admit(for step: Step) -> (Component, admitted: Bool) {
        guard let component else {
            if step.kind == .handle { Diagnostics.handleAfterRelease(step) }
            Diagnostics.componentReleased(provider: step.name, component: step.componentType, site: step.site)
        }
        let admitted = withGate { $0.enter() } || TaskAgent.stepOfResolution(thatEntered: address) != nil
        if !admitted { leaveGate() }
        return (component, admitted)
    }

    @usableFromInline var isShuttingDown: Bool { withGate { $0.isClosed } }

    @usableFromInline func leaveGate() {
        if withGate({ $0.leave() }) { lastCallLeft() }
    }

    /// Resumes the shutdown that waits, under the lock, for the last call out of the gate: a rare
    /// path, kept out of `leaveGate()`.
    @inline(never) private func lastCallLeft() { withLock { $0.extras?.drained.take() }?.resume() }
}

/// The component whose close action runs in this task, and that action's provider.
enum ClosingComponent {
    @TaskLocal static var current: (identity: UInt, provider: String)?
}

/// A handle's read that its component's shutdown refused, while the handle's closure runs all the
/// same, without entering the component, so that the first of the component's providers it calls is
/// refused in turn and named as what the handle reads.
enum RefusedRead {
    @TaskLocal static var current: (identity: UInt, handle: String, site: ProviderSite)?
}

extension Component {
    /// Stops the program: the call whose step is `step` was refused, once shutdown had begun. A handle's
    /// read that called none of the component's providers is named as a refused read (see
    /// `RefusedRead`).
    @usableFromInline func refuse(_ step: Step) -> Never {
        if let closing = ClosingComponent.current, closing.identity == identity {
            Diagnostics.calledByCloseAction(step, closing: closing.provider, component: type(of: self))
        }
        // A handle's read refused here, or one whose closure called a provider refused here.
        let read = RefusedRead.current.flatMap { $0.identity == identity ? $0 : nil }
        if let read = read ?? (step.kind == .handle ? (identity, step.name, step.site) : nil) {
            Diagnostics.handleReadAfterShutdown(
                read.handle, site: read.site, provider: step.kind == .provider ? step.name : nil,
                component: type(of: self))
        }
        Diagnostics.calledAfterShutdown(provider: step.name, component: type(of: self), site: step.site)
    }

    /// Runs `body` as a call into the component, entered through its gate as a provider call is, or
    /// returns nil without running it if the gate refuses the call. A test hook: it observes the
    /// refusal that would stop the program, and the provider calls `body` makes are nested in it.
    ///
    /// It throws what `body` throws, and, as the outermost call of its resolution, what a provider
    /// call that can throw would: a `ResolutionEndFailure`, when the resolution took another thread's
    /// half-configured instance whose build then failed. So it is not `rethrows`: a `rethrows` hook
    /// would throw that error to a caller that expects none.
    package func ifAdmitted<Result>(_ body: () throws -> Result) throws -> Result? {
        try ResolutionContext.withCurrent { context in
            try context.asOutermost {
                guard case .entered = storage.enter(in: context, for: hookStep) else { return nil }
                return try body()
            }
        }
    }

    /// `ifAdmitted(_:)` for a body that awaits, as an async provider call; like it, not `rethrows`.
    package func ifAdmittedAwaiting<Result>(_ body: () async throws -> Result) async throws -> Result? {
        try await TaskAgent.withCurrent(at: hookStep) { (agent) async throws -> Result? in
            guard case .entered = storage.enter(in: agent, for: hookStep) else { return nil }
            return try await body()
        }
    }

    /// The step that would name a test hook's call if the component were gone, which it is not: the
    /// hook is its method.
    private var hookStep: Step {
        Step(
            .handle, owner: identity, component: identity,
            site: ProviderSite(file: #fileID, line: #line, column: 0, function: "ifAdmitted(_:)"),
            type: Self.self, subject: Self.self, componentType: Self.self)
    }

    /// Whether the component's shutdown has begun. A test hook.
    package var isShuttingDown: Bool { storage.isShuttingDown }
}
