/// A reference that a record keeps without a reference count, for a record that never outlives
/// the object: storing and dropping it cost no atomic operation, and comparing it with another
/// reference reads nothing from the object.
///
/// **Why it is safe.** Whoever stores one states, beside the stored property, which owner keeps
/// the object alive for as long as the record exists. `object` then makes a strong reference from
/// an object that is alive; nothing else dereferences the pointer.
struct UncountedReference<Object: AnyObject> {
    private let pointer: Unmanaged<Object>

    init(_ object: Object) {
        pointer = Unmanaged.passUnretained(object)
    }

    /// Whether this is a reference to `object`; compares addresses only.
    func refers(to object: Object) -> Bool {
        pointer.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
    }

    /// A strong reference to the object, which the record's owner keeps alive.
    var object: Object { pointer.takeUnretainedValue() }

    /// Runs `body` with the object, lent without a reference count of its own: the record's owner
    /// keeps it alive.
    func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try pointer._withUnsafeGuaranteedRef(body)
    }
}
