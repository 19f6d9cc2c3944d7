/// The cell of a provider that keeps its instance strongly: `single`, `async single` and `scoped`,
/// and each key of `single(key:)`.
///
/// A class of its own, not generic, so that making and releasing a cell run code compiled for it:
/// a generic class's initializer and deinitializer run as generic code, and the header of
/// `StrongObjectStorage`, a type that is not generic either, is then destroyed field by field.
@usableFromInline
package final class StrongObjectCell: OnceCell<StrongObjectStorage> {
    /// The ready object, read under the lock, nil when the cell is not ready: what a cached
    /// `single`'s read calls. The reference is copied before the lock is given back, so that a
    /// `reset()` on another thread cannot release the object first.
    @inlinable package var readyObject: AnyObject? {
        withLock { $0.machine.ready?.stored }
    }
}

/// The cell of a `weak` provider; see `StrongObjectCell`.
@usableFromInline
package final class WeakObjectCell: OnceCell<WeakObjectStorage> {}
