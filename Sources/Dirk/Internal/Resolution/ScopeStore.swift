/// The `scoped` instances of one resolution: one build-once cell per provider, made on the
/// provider's first call in the resolution and released when the resolution ends.
///
/// A provider is found by its key and its owner, the module whose provider it is, which the entry
/// keeps alive, so that no other owner can take the same address while the entry exists.
///
/// An async resolution shares its store with every synchronous resolution that runs inside it, on
/// whatever thread, so that a `scoped` provider asked for before and after an `await` gives the
/// same instance; its tasks (`async let`, task groups) may ask at once, hence the lock. A
/// synchronous resolution outside any async one uses a store of its thread's own, which its
/// context keeps from one resolution to the next and empties when each ends.
final class ScopeStore: Locked<ScopeStore.State> {
    // Shared between threads, though `ManagedBuffer` does not let it say so: the state is guarded
    // by the lock of `Locked`.

    struct State {
        var entries = InlineList<Entry>()
        var count = 0
        var hasEnded = false
    }

    /// A provider's cell, with the provider's owner and key.
    struct Entry {
        let owner: AnyObject
        let key: ProviderKey
        let cell: OnceCell
    }

    /// An empty store.
    static func make() -> ScopeStore {
        make(State())
    }

    /// Whether the resolution that owns the store has ended: an unstructured task that inherited
    /// the store then starts a store of its own.
    var hasEnded: Bool { withLock { $0.hasEnded } }

    /// How many cells the store holds: a mark for `releaseCells(from:)`.
    var count: Int { withLock { $0.count } }

    /// The cell of the provider at `key` of `owner`, made on first use. Once the resolution has
    /// ended, a cell made is not kept: its caller is its only keeper, and no ended scope holds an
    /// instance.
    func cell(owner: AnyObject, key: ProviderKey) -> OnceCell {
        withLock { state in
            if let existing = state.entries.first(where: { $0.owner === owner && $0.key == key }) {
                return existing.cell
            }
            let made = OnceCell.make()
            if !state.hasEnded {
                state.entries.append(Entry(owner: owner, key: key, cell: made))
                state.count += 1
            }
            return made
        }
    }

    /// The cell of the provider at `key` of `owner`, if it has one.
    func existingCell(owner: AnyObject, key: ProviderKey) -> OnceCell? {
        withLock { state in state.entries.first { $0.owner === owner && $0.key == key }?.cell }
    }

    /// Releases the cells made after the first `mark`, one at a time, in the order they were
    /// made, each after the lock, since their instances' deinitializers may run user code and even
    /// resolve again on this thread.
    func releaseCells(from mark: Int) {
        guard mark > 0 else {
            while let entry = takeFirst() { _ = consume entry }
            return
        }
        var dropped: [Entry] = withLock { state in
            let all = state.entries.removeAllElements().elements
            for entry in all.prefix(mark) { state.entries.append(entry) }
            state.count = min(mark, all.count)
            return all.dropFirst(mark).reversed()
        }
        while let entry = dropped.popLast() { _ = consume entry }
    }

    /// Removes the first cell and returns it, if the store holds any.
    private func takeFirst() -> Entry? {
        withLock { state in
            let first = state.entries.removeFirst()
            if first != nil { state.count -= 1 }
            return first
        }
    }

    /// Ends the resolution: releases its instances, as `releaseCells(from:)` does. A synchronous
    /// resolution that used some of a shared store keeps them until it ends (see
    /// `ResolutionContext.scopedCell`).
    func end() {
        withLock { $0.hasEnded = true }
        releaseCells(from: 0)
    }
}
