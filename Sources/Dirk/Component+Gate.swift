extension ComponentStorage {
    /// The component, entered by the resolution `context` (the thread's, or a task's part of an
    /// async one): counted in the component's gate and kept alive until the resolution ends, unless
    /// the resolution entered it already. Stops the program, naming `frame`'s provider or handle, if the
    /// component was released or its shutdown refuses the call.
    @inlinable @inline(__always)
    final func enter(in context: some EnteringResolution, for frame: @autoclosure () -> Frame) -> LentObject {
        if let entry = context.entry(of: address) { return entry }
        let component = admitted(for: frame())
        context.enter(component, storage: self)
        return LentObject(component)
    }

    /// Runs `body` with the component, entered by the thread's resolution (see `enter(in:for:)`): a
    /// `transient`'s way in. (Speed only: written out in `runTransient`, the same code costs a
    /// `transient` about 45 instructions more, in retains and releases.)
    @inlinable @inline(__always) final func withEntered<Result>(
        in context: ResolutionContext, for frame: @autoclosure () -> Frame,
        _ body: (Component) throws -> Result
    ) rethrows -> Result {
        try enter(in: context, for: frame()).withObject {
            try body(Erasure.component($0, as: Component.self))
        }
    }

    /// Enters the component for the resolution `context`, unless it entered it already, and returns
    /// nil; or returns the component when its shutdown refuses the call, without entering it: a
    /// handle's read then runs under `RefusedRead`, so that the message names what it reads. A
    /// component that is gone is left to `enter(in:for:)`, which names it.
    final func enterUnlessRefused(in context: some EnteringResolution) -> Component? {
        guard context.entry(of: address) == nil, let component else { return nil }
        guard component.admits() else { return component }
        context.enter(component, storage: self)
        return nil
    }

    /// The component, admitted through its gate for the call whose step is `frame`.
    @usableFromInline @inline(never) final func admitted(for frame: Frame) -> Component {
        guard let component else {
            if frame.kind == .handle {
                Diagnostics.handleAfterRelease(frame.name, component: frame.componentType, site: frame.site)
            }
            Diagnostics.componentReleased(
                provider: frame.name, component: frame.componentType, site: frame.site)
        }
        component.admit(frame)
        return component
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
    /// Counts the call whose step is `frame` into the component's gate; stops the program if the gate
    /// refuses it, once shutdown has begun.
    func admit(_ frame: Frame) {
        if admits() { return }
        if let closing = ClosingComponent.current, closing.identity == identity {
            Diagnostics.calledByCloseAction(frame, closing: closing.provider, component: type(of: self))
        }
        if let read = RefusedRead.current, read.identity == identity {
            Diagnostics.handleReadAfterShutdown(
                read.handle, site: read.site, provider: frame.kind == .provider ? frame.name : nil,
                component: type(of: self))
        }
        Diagnostics.calledAfterShutdown(provider: frame.name, component: type(of: self), site: frame.site)
    }

    /// Stops the program: the read of a handle, the step `frame`, which the component's shutdown
    /// refused, called none of the component's providers (see `RefusedRead`).
    func refusedRead(_ frame: Frame) -> Never {
        Diagnostics.handleReadAfterShutdown(
            frame.name, site: frame.site, provider: nil, component: type(of: self))
    }

    /// Counts a call into the component's gate, unless the gate refuses it: once shutdown has begun,
    /// only a call of an async resolution that has entered the component goes on, counted, so that
    /// shutdown waits for it.
    func admits() -> Bool {
        if storage.gate.add(2) & 1 == 0 || TaskAgent.stepOfResolution(thatEntered: identity) != nil {
            return true
        }
        storage.leaveGate()
        return false
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
    package var isShuttingDown: Bool { storage.gate.relaxed & 1 != 0 }
}

extension ComponentStorage: EnteredComponent {
    /// Counts a call out of the gate; the last one out of a component whose shutdown has begun
    /// resumes the shutdown, which waits for it under the lock.
    func leaveGate() {
        if gate.add(-2) == 3 { lastCallLeft() }
    }

    /// Resumes the shutdown that waits for the last call in the gate to leave.
    @usableFromInline func lastCallLeft() {
        withLock { $0.extras?.shutdown?.drained.take() }?.resume()
    }
}
