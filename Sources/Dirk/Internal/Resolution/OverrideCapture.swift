/// An override being set up: `Component.overriding(_:with:)` runs its closure with this bound in a
/// task-local value, and the first provider the closure calls is the one it overrides.
///
/// Sendable because every field is a constant but `progress`, which its lock guards; copies share
/// that lock and what it guards.
@usableFromInline struct OverrideCapture: @unchecked Sendable {
    /// The capture of the `overriding(_:with:)` under way on this thread or in this task and the
    /// tasks it starts: an async closure may call its provider on any thread. Tasks that outlive the
    /// closure keep it, finished.
    @TaskLocal static var bound: OverrideCapture?
    /// Whether this thread or task, or the task that started it, resolves the captured provider
    /// through its new factory, whose own provider calls are ordinary. A task's own, so that a
    /// sibling task's call of a second provider is still caught.
    @TaskLocal static var isSuspendedHere = false

    /// The component whose provider is overridden, compared only.
    let component: UInt
    let componentType: Any.Type
    /// Where `overriding(_:with:)` was called, for messages.
    let call: Diagnostics.Call
    /// `file:line`, for messages: `AppTests/StoreTests.swift:12`.
    var location: String { "\(call.file):\(call.line)" }
    /// The type the replacement factory makes, which must be the type the provider's strategy
    /// builds.
    let valueType: Any.Type
    /// The type of the key that the replacement factory takes, which only a `single(key:)` provider
    /// passes; nil for a factory that takes none.
    let keyType: Any.Type?
    /// Whether the replacement factory awaits, which only an async provider can do.
    let isAsync: Bool
    /// The replacement factory, made and read by the layer above.
    let factory: any AnyObject & Sendable
    /// What the closure has done so far: the provider it called, and whether `overriding(_:with:)`
    /// has returned. A lock, not a confinement to one thread: the closure of the async form may call
    /// providers from the tasks it starts.
    private let progress: Locked<(captured: String?, isFinished: Bool)> = .make((nil, false))

    /// The override being set up by this thread or task, or by the task that started it: nil but
    /// while an `overriding(_:with:)` runs its closure, and once it has returned, for a task that
    /// outlives it. Read only when a component is watched.
    static var current: OverrideCapture? {
        bound.flatMap { capture in capture.progress.withLock { $0.isFinished } ? nil : capture }
    }

    /// Ends the capture, when `overriding(_:with:)` returns: a task started in its closure or
    /// factory that is still running makes ordinary calls. Stops the program unless the closure
    /// called a provider.
    func finish() {
        let captured = progress.withLock { progress in
            progress.isFinished = true
            return progress.captured
        }
        if captured == nil {
            Diagnostics.overrideCalledNoProvider(component: componentType, isAsync: isAsync, at: call)
        }
    }

    /// Records `provider` as the one the closure called, unless it called another before: returns
    /// that other one.
    func capture(_ provider: String) -> String? {
        progress.withLock { progress in
            if let first = progress.captured { return first }
            progress.captured = provider
            return nil
        }
    }
}
