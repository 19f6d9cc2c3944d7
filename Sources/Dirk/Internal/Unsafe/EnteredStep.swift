/// A provider's step, entered on the calling thread and left by the caller, which runs the
/// provider's factory in its own frame in between: the thread's resolution and the component
/// the factory receives, both lent.
///
/// A `transient` takes this shape so that a chain of them costs one frame per provider, like
/// hand-written calls, rather than several nested closures each: a return address that the
/// processor cannot predict (past its return-stack buffer, about 32 calls deep) costs about five
/// nanoseconds, more than the rest of a provider call.
///
/// **Why it is safe.** Neither reference carries a reference count of its own:
/// - the thread-local variable owns `context` until the thread exits, and the step runs on that
///   thread;
/// - the resolution holds `owner` (see `UnownedReference.holdIfAlive(in:)`) until it ends, and it
///   cannot end while the step is entered: only `leave()`, the step's last use, can end it.
@usableFromInline struct EnteredStep<Owner: AnyObject> {
    @usableFromInline let context: Unmanaged<ResolutionContext>
    @usableFromInline let owner: Unmanaged<Owner>

    /// Call it only after entering a step of `context` in which `owner` is held.
    @inlinable init(context: ResolutionContext, owner: UnownedReference<Owner>) {
        self.context = Unmanaged.passUnretained(context)
        self.owner = Unmanaged<Owner>.fromOpaque(owner.address)
    }

    /// Runs `body` with the owner, lent; call it before `leave()`.
    @inlinable
    func withOwner<Result>(_ body: (Owner) throws -> Result) rethrows -> Result {
        try owner._withUnsafeGuaranteedRef(body)
    }

    /// Leaves the step; when it was the outermost, ends the resolution, which may release the
    /// owner, and returns why the step's call must throw, if it must (see
    /// `ResolutionContext.leave()`).
    @inlinable @inline(__always)
    func leave() -> ResolutionEndFailure? {
        context._withUnsafeGuaranteedRef { $0.leave() }
    }
}
