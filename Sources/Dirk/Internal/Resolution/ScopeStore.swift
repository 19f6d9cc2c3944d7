/// The `scoped` instances of one async resolution: one cell per provider, made on the provider's
/// first call in the resolution and released when the resolution ends.
///
/// A provider is found by its key and its owner, the module whose provider it is, so that a
/// `scoped` provider needs no object of its own.
///
/// An async resolution shares its store with every sync resolution that runs inside it, on
/// whatever thread, so that a `scoped` provider asked for before and after an `await` gives the
/// same instance. Tasks of one async resolution (`async let`, task groups) may ask at once, hence
/// the lock; the cells make each instance once. The state and its lock are one allocation, and so
/// is a store's only cell. (A synchronous resolution outside any async one keeps its instances
/// itself, in a `ConfinedScope`, which no other thread can reach.)
@usableFromInline
final class ScopeStore: Locked<ScopeStore.State> {
    // Shared between threads, though `ManagedBuffer` does not let it say so: the state is guarded
    // by the lock of `Locked`.

    @usableFromInline
    struct State {
        /// The cells, each with its provider's key and its owner (the provider's module), which the
        /// entry keeps alive, so that no other owner can take the same address while the store
        /// exists.
        var cells = InlineList<Entry>()
        var hasEnded = false
    }

    /// A provider's cell: a struct rather than a tuple, so that copying and destroying one is
    /// compiled for it instead of going through a tuple's generic witnesses.
    @usableFromInline
    struct Entry {
        let owner: AnyObject
        let key: ProviderKey
        let cell: AnyObject
    }

    /// An empty store.
    static func make() -> ScopeStore {
        make(State())
    }

    /// Whether the resolution that owns the store has ended: an unstructured task that inherited
    /// the store then starts a store of its own.
    var hasEnded: Bool { withLock { $0.hasEnded } }

    /// The cell of the provider at `key` of `owner`, in this resolution,
    /// made by `make` on first use. Once the resolution has ended, a cell made is not kept: its
    /// caller is its only keeper, and no ended scope holds an instance.
    func cell<Cell: AnyObject>(owner: AnyObject, key: ProviderKey, make: () -> Cell) -> Cell {
        withLock { state in
            if let existing = state.cells.first(where: { $0.owner === owner && $0.key == key }) {
                // Every cell stored under a key and an owner was made by the same provider, with
                // its type.
                return unsafeDowncast(existing.cell, to: Cell.self)
            }
            let made = make()
            if !state.hasEnded { state.cells.append(Entry(owner: owner, key: key, cell: made)) }
            return made
        }
    }

    /// Ends the resolution: releases its instances, after the lock, since their deinitializers may
    /// run user code. A synchronous resolution that used some keeps them until it ends (see
    /// `ResolutionContext.sharedScopedCell`).
    func end() {
        let released = withLock { state in
            state.hasEnded = true
            return state.cells.removeAllElements()
        }
        withExtendedLifetime(released) {}
    }
}
