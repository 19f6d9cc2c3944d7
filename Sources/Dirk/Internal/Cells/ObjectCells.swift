/// The cell of a provider that keeps its instance strongly: `single`, `async single` and `scoped`,
/// each key of `single(key:)`, and a module being created. Values travel as objects (`Erasure`).
@usableFromInline package typealias StrongObjectCell = OnceCell<StrongStorage<AnyObject>>

/// The cell of a `weak` provider.
@usableFromInline package typealias WeakObjectCell = OnceCell<WeakStorage<AnyObject>>

extension OnceCell where Storage == StrongStorage<AnyObject> {
    /// The ready object, read under the lock, nil when the cell is not ready: what a cached
    /// `single`'s read calls. The reference is copied before the lock is given back, so that a
    /// `reset()` on another thread cannot release the object first.
    @inlinable package var readyObject: AnyObject? {
        withLock { $0.ready?.stored }
    }
}
