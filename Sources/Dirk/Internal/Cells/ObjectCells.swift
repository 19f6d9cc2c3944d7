/// The cell of a provider that keeps its instance strongly: `single`, `async single` and `scoped`,
/// and each key of `single(key:)`.
///
/// A class of its own, not generic, so that releasing a cell is compiled for its state: a generic
/// class's deinitializer is never specialized, and destroys its state through the type's generic
/// witnesses.
@usableFromInline
package final class StrongObjectCell: OnceCell<StrongStorage<AnyObject>> {}

/// The cell of a `weak` provider; see `StrongObjectCell`.
@usableFromInline
package final class WeakObjectCell: OnceCell<WeakStorage<AnyObject>> {}
