/// An override being set up: `Component.overriding(_:with:)` runs its closure with this in the
/// thread's resolution (or, for the async form, in the task), and the first provider the closure
/// calls is the one it overrides.
///
/// Sendable because every field is a constant but `progress`, which its lock guards; copies share
/// that lock and what it guards.
@usableFromInline struct OverrideCapture: @unchecked Sendable {
    /// The capture of the async `overriding(_:with:)` under way in this task and the tasks it
    /// starts: an async closure may call its provider on any thread. Tasks that outlive the
    /// closure keep it, finished.
    @TaskLocal static var inTask: OverrideCapture?
    /// Whether this task, or the task that started it, resolves the captured provider of an async
    /// capture through its new factory, whose own provider calls are ordinary. A task's own, so
    /// that a sibling task's call of a second provider is still caught.
    @TaskLocal static var isSuspendedInTask = false

    /// The component whose provider is overridden, compared only.
    let component: UInt
    let componentType: Any.Type
    /// Where `overriding(_:with:)` was called, for messages.
    let file: StaticString
    let line: UInt
    /// `file:line`, for messages: `AppTests/StoreTests.swift:12`.
    var location: String { "\(file):\(line)" }
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
    /// What the closure has done so far. A lock, not a confinement to one thread: the closure of
    /// the async form may call providers from the tasks it starts.
    private let progress = Locked.make(Progress())

    private struct Progress {
        var captured: String?
        /// The synchronous form's suspension (see `isSuspended`).
        var isSuspended = false
        /// Whether `overriding(_:with:)` has returned.
        var isFinished = false
    }

    /// The override being set up by this thread, or by this task: nil but while an
    /// `overriding(_:with:)` runs its closure. Read only when a component is watched.
    static func current(on context: ResolutionContext) -> OverrideCapture? {
        context.capture ?? currentInTask
    }

    /// The async form's override being set up by this task, or by the task that started it: nil
    /// once that `overriding(_:with:)` has returned, for a task that outlives it.
    static var currentInTask: OverrideCapture? {
        guard let capture = inTask, !capture.progress.withLock({ $0.isFinished }) else { return nil }
        return capture
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
            Diagnostics.overrideCalledNoProvider(
                component: componentType, isAsync: isAsync, file: file, line: line)
        }
    }

    /// Whether the captured provider is resolving through its new factory, whose own provider
    /// calls are ordinary: on this thread, for the synchronous form, whose capture is the
    /// thread's; in this task and the tasks it starts, for the async form.
    var isSuspended: Bool { isAsync ? Self.isSuspendedInTask : progress.withLock { $0.isSuspended } }

    /// Records `provider` as the one the closure called, unless it called another before: returns
    /// that other one.
    func capture(_ provider: String) -> String? {
        progress.withLock { progress in
            if let first = progress.captured { return first }
            progress.captured = provider
            return nil
        }
    }

    /// Runs `body` while the capture is suspended: the captured provider resolves through its new
    /// factory, whose provider calls are ordinary.
    func whileSuspended<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        progress.withLock { $0.isSuspended = true }
        defer { progress.withLock { $0.isSuspended = false } }
        return try body()
    }

    /// `whileSuspended(_:)` for the async form, whose suspension is the task's.
    func whileSuspendedAwaiting<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await Self.$isSuspendedInTask.withValue(true) { try await body() }
    }
}
