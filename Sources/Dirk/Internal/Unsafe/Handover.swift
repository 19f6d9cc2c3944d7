/// A reference on its way to the place that will keep it (a parent list, a module's published
/// slots), made from the caller's own reference, which it takes over.
///
/// The retain it makes is followed at once by the release of the caller's reference, a pair that
/// the compiler removes, so that handing an object over counts no reference beyond the one the
/// caller made. (Speed only: with the pair in place, the counts still balance.)
///
/// **Why it is safe.** A handover owns one reference to its object until it is given up, exactly
/// once: kept by the place it goes to (`take()`), or released (`release()`), or left behind when
/// the program stops. Until then that reference keeps the object alive for `withObject(_:)`.
/// Whoever gives it up says, beside the call, which owner keeps the object alive from then on for
/// anyone who still uses it.
package struct Handover<Object: AnyObject> {
    private let reference: Unmanaged<Object>

    @inline(__always) package init(_ object: consuming Object) {
        reference = Unmanaged.passRetained(object)
    }

    /// Runs `body` with the object, lent without a count of its own: the handover's reference keeps
    /// it alive until the handover is given up.
    package func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// Gives up the handover, returning its reference for the place that keeps it from now on.
    func take() -> Unmanaged<Object> {
        reference
    }

    /// Gives up the handover, releasing its reference: for an object that nothing will keep.
    func release() {
        reference.release()
    }
}
