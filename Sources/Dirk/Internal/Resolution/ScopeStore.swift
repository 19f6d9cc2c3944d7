/// The `scoped` instances of one resolution: one cell per provider slot, made on the provider's
/// first call in the resolution and released when the resolution ends.
///
/// A thread's resolution has one store; an async resolution shares its store with every sync
/// resolution that runs inside it, on whatever thread, so that a `scoped` provider asked for
/// before and after an `await` gives the same instance. Tasks of one async resolution (`async let`,
/// task groups) may ask at once, hence the lock; the cells make each instance once.
@usableFromInline final class ScopeStore: @unchecked Sendable {
    // `state` is guarded by its own lock.
    private let state = Locked<State>.make(State())

    private struct State {
        /// The cells by the identity of their slot; each entry keeps its slot alive, so that no
        /// other slot can take the same address while the store exists.
        var cells: [ObjectIdentifier: (slot: AnyObject, cell: AnyObject)] = [:]
        var hasEnded = false
    }

    /// Whether the resolution that owns the store has ended: an unstructured task that inherited
    /// the store then starts a store of its own.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// The cell of `slot` in this resolution, made by `make` on first use.
    @usableFromInline func cell<Cell: AnyObject>(for slot: AnyObject, make: () -> Cell) -> Cell {
        let key = ObjectIdentifier(slot)
        return state.withLock { state in
            if let existing = state.cells[key] {
                // Every cell stored under a slot was made by the same provider, with its type.
                return unsafeDowncast(existing.cell, to: Cell.self)
            }
            let made = make()
            state.cells[key] = (slot, made)
            return made
        }
    }

    /// Ends the resolution: releases its instances, after the lock, since their deinitializers may
    /// run user code.
    func end() {
        let released = state.withLock { state in
            state.hasEnded = true
            defer { state.cells = [:] }
            return state.cells
        }
        withExtendedLifetime(released) {}
    }
}
