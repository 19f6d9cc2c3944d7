/// An object lent without a reference count of its own: a component that the resolution under way
/// entered, which the resolution keeps alive until it ends.
///
/// **Why it is safe.** A loan is made only of an object that a strong reference held elsewhere keeps
/// alive for as long as the loan is used: the reference that the resolution took when it entered the
/// component (`Entered`), which it gives back only when it ends, after every step that uses the
/// loan has returned. `withObject` lends the object to a closure that does not let it escape.
@usableFromInline struct LentObject {
    @usableFromInline let reference: Unmanaged<AnyObject>

    /// The loan of `object`, which a strong reference held elsewhere keeps alive.
    @inlinable @inline(__always) init(_ object: AnyObject) { reference = Unmanaged.passUnretained(object) }

    /// The loan of the object that `reference`, a resolution's entry (`Entered`), refers to.
    @inlinable @inline(__always) init(_ reference: Unmanaged<AnyObject>) { self.reference = reference }

    /// The object, as a strong reference of the caller's own.
    @inlinable var object: AnyObject { reference.takeUnretainedValue() }

    /// Runs `body` with the object, which it uses without a reference count of its own.
    @inlinable @inline(__always)
    func withObject<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }
}
