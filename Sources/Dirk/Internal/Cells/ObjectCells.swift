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
        let words = extraWords
        withUnsafeMutablePointerToHeader {
            $0.pointee.machine.ready?.releaseSpares(in: words, isShared: false)
        }
    }

    /// The ready object, as a reference the caller owns (`takeRetainedValue()`), taken from the
    /// cell's spares (`SpareReferences`): without the lock while any is left, and under it
    /// otherwise; nil when the cell is not ready. What a cached `single`'s read calls: it counts no
    /// reference of its own.
    @inlinable package func takeReadyReference() -> Unmanaged<AnyObject>? {
        if let taken = SpareReferences(cellWords: extraWords).take() { return taken }
        return takeReadyReferenceLocked()
    }

    /// How many spare references the cell's word holds now. A test hook.
    package var spareCount: Int { SpareReferences(cellWords: extraWords).count }

    /// `takeReadyReference()` when the cell's word holds no spare: under the lock.
    @usableFromInline @inline(never) func takeReadyReferenceLocked() -> Unmanaged<AnyObject>? {
        let words = extraWords
        // The out-of-line unlock (`withLock`): the read may retain the object under the lock.
        return withLock { $0.machine.ready?.takeReference(in: words) }
    }
}

/// The cell of a `weak` provider; see `StrongObjectCell`.
@usableFromInline
package final class WeakObjectCell: OnceCell<WeakObjectStorage> {}
