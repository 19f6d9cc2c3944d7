/// The cell of a provider that keeps its instance strongly: `single`, `async single` and `scoped`,
/// and each key of `single(key:)`.
///
/// A class of its own, not generic, so that making and releasing a cell run code compiled for it:
/// a generic class's initializer and deinitializer run as generic code, and the header of
/// `StrongObjectStorage`, a type that is not generic either, is then destroyed field by field.
@usableFromInline
package final class StrongObjectCell: OnceCell<StrongObjectStorage> {
    deinit {
        // Nothing else refers to the cell any more, so its state is read without its lock. Its
        // value's own reference is released after this, with the rest of the state.
        withUnsafeMutablePointerToHeader { $0.pointee.machine.ready?.releaseSpares() }
    }

    /// The ready object, as a reference the caller owns (`takeRetainedValue()`), taken from the
    /// storage's spares under the lock; nil when the cell is not ready. What a cached `single`'s
    /// read calls: it counts no reference of its own (`SpareReferences`).
    @inlinable package func takeReadyReference() -> Unmanaged<AnyObject>? {
        withLockCopyingNoReference { $0.machine.ready?.takeReference() }
    }
}

/// The cell of a `weak` provider; see `StrongObjectCell`.
@usableFromInline
package final class WeakObjectCell: OnceCell<WeakObjectStorage> {}
