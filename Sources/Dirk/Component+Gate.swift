extension ComponentStorage {
    /// The component, entered by the resolution `context` (the thread's, or a task's part of an
    /// async one): counted in the component's gate and kept alive until the resolution ends, unless
    /// the resolution entered it already. Stops the program, naming `step`'s provider or handle, if the
    /// component was released or its shutdown refuses the call.
    @inlinable @inline(__always)
    final func enter(in context: some EnteringResolution, for step: @autoclosure () -> Step) -> Entered {
        if let entry = context.entry(of: address) { return entry }
        return context.enter(admitted(for: step()), storage: self)
    }

    /// Runs `body` with the component, entered by the thread's resolution (see `enter(in:for:)`): a
    /// `transient`'s way in. (Speed only: written out in `runTransient`, the same code costs a
    /// `transient` about 45 instructions more, in retains and releases.)
    @inlinable @inline(__always) final func withEntered<Result>(
        in context: ResolutionContext, for step: @autoclosure () -> Step,
        _ body: (Component) throws -> Result
    ) rethrows -> Result {
        try enter(in: context, for: step()).withObject {
            try body(Erasure.component($0, as: Component.self))
        }
    }

    /// Enters the component for the resolution `context`, unless it entered it already, and returns
    /// nil; or returns the component when its shutdown refuses the call, without entering it: a
    /// handle's read then runs under `RefusedRead`, so that the message names what it reads. A
    /// component that is gone is left to `enter(in:for:)`, which names it.
    final func enterUnlessRefused(in context: some EnteringResolution) -> Component? {
        guard context.entry(of: address) == nil, let component else { return nil }
        guard admits() else { return component }
        _ = context.enter(component, storage: self)
        return nil
    }

    /// The component, admitted through its gate for the call whose step is `step`; stops the program,
    /// naming the call, if the component was released or its shutdown refuses the call.
    @usableFromInline @inline(never) final func admitted(for step: Step) -> Component {
        guard let component else {
            if step.kind == .handle {
                Diagnostics.handleAfterRelease(step.name, component: step.componentType, site: step.site)
            }
            Diagnostics.componentReleased(
                provider: step.name, component: step.componentType, site: step.site)
        }
        if !admits() { component.refuse(step) }
        return component
    }

    /// Counts a call into the gate, unless it refuses it: once shutdown has begun, only a call of an
    /// async resolution that has entered the component goes on, counted, so that shutdown waits for it.
    func admits() -> Bool {
        if gate.enter() || TaskAgent.stepOfResolution(thatEntered: address) != nil { return true }
        leaveGate()
        return false
    }
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
    func refuse(_ step: Step) -> Never {
        if let closing = ClosingComponent.current, closing.identity == identity {
            Diagnostics.calledByCloseAction(step, closing: closing.provider, component: type(of: self))
        }
        if let read = RefusedRead.current, read.identity == identity {
            Diagnostics.handleReadAfterShutdown(
                read.handle, site: read.site, provider: step.kind == .provider ? step.name : nil,
                component: type(of: self))
        }
        if step.kind == .handle {
            Diagnostics.handleReadAfterShutdown(
                step.name, site: step.site, provider: nil, component: type(of: self))
        }
        Diagnostics.calledAfterShutdown(provider: step.name, component: type(of: self), site: step.site)
    }

    /// Runs `body` as a call into the component, entered through its gate as a provider call is, or
    /// returns nil without running it if the gate refuses the call. A test hook: it observes the
    /// refusal that would stop the program, and the provider calls `body` makes are nested in it.
    package func ifAdmitted<Result>(_ body: () throws -> Result) rethrows -> Result? {
        try ResolutionContext.withCurrent { context in
            try context.asOutermost { storage.enterUnlessRefused(in: context) == nil ? try body() : nil }
        }
    }

    /// `ifAdmitted(_:)` for a body that awaits, as an async provider call.
    package func ifAdmittedAwaiting<Result>(_ body: () async throws -> Result) async rethrows -> Result? {
        try await TaskAgent.withCurrent { (agent) async throws -> Result? in
            storage.enterUnlessRefused(in: agent) == nil ? try await body() : nil
        }
    }

    /// Whether the component's shutdown has begun. A test hook.
    package var isShuttingDown: Bool { storage.gate.isClosed }
}

extension ComponentStorage: EnteredComponent {
    /// Counts a call out of the gate; the last one out of a component whose shutdown has begun
    /// resumes the shutdown.
    func leaveGate() { if gate.leave() { lastCallLeft() } }

    // The shutdown waits for the last call out under the lock.
    @usableFromInline func lastCallLeft() { withLock { $0.extras?.shutdown?.drained.take() }?.resume() }
}
