/// The baseline of `cachedread`: a reference in a `let`, which needs no synchronization because
/// it never changes.
public final class LetCell: Sendable {
    private let object: CachedObject

    public init(_ object: CachedObject) {
        self.object = object
    }

    /// The object, retained. Not inlined (see `CachedObject`).
    @inline(never)
    public func read() -> CachedObject {
        object
    }
}
