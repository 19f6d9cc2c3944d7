/// The cells of a `single(key:)` provider, one per key, found without running the key's user
/// code under a lock.
///
/// A key's `hash(into:)` and `==` are user code, which may do anything, even resolve providers.
/// So the hash is computed before the lock is taken, only cells with that hash are taken out under
/// the lock, and the keys are compared after it is released. A cell added for an equal key
/// meanwhile shows up as a new version, and the comparison is made again.
///
/// `reset()` drops every key whose cell is not being built, with its instance: a build under way
/// finishes and is cached under its key. A dropped cell is retired, so that a caller that found it
/// before the reset finds the key's cell again rather than build an instance nobody will find.
@usableFromInline final class KeyedCells: @unchecked Sendable {
    @usableFromInline typealias Cell = OnceCell

    @usableFromInline init() {}

    // `state` is guarded by its own lock; entries are immutable.
    private let state = Locked<State>.make(State())

    /// One key and its cell.
    final class Entry: @unchecked Sendable {
        // Immutable.
        let key: AnyHashable
        let cell: Cell

        init(key: AnyHashable, cell: Cell) {
            self.key = key
            self.cell = cell
        }
    }

    private struct State {
        /// The entries by their key's hash value.
        var entries = [Int: [Entry]]()
        /// Grows by one with every entry added.
        var version: UInt64 = 0
    }

    /// The cell for `key`, made on first use. Runs `key`'s `hash(into:)` and `==` with no lock held.
    @usableFromInline func cell(for key: AnyHashable) -> Cell {
        let hash = key.hashValue
        var (candidates, version) = state.withLock { ($0.entries[hash] ?? [], $0.version) }
        while true {
            if let found = candidates.first(where: { $0.key == key }) { return found.cell }
            let added: Entry? = state.withLock { state in
                guard state.version == version else { return nil }
                let entry = Entry(key: key, cell: OnceCell.make())
                state.entries[hash, default: []].append(entry)
                state.version &+= 1
                return entry
            }
            if let added { return added.cell }
            (candidates, version) = state.withLock { ($0.entries[hash] ?? [], $0.version) }
        }
    }

    /// The cell for `key`, if it has one. Runs `key`'s `hash(into:)` and `==` with no lock held.
    func existingCell(for key: AnyHashable) -> Cell? {
        let hash = key.hashValue
        let candidates = state.withLock { $0.entries[hash] ?? [] }
        return candidates.first { $0.key == key }?.cell
    }

    /// Whether any key's cell holds a value now.
    var hasValue: Bool {
        cells.contains { $0.hasValue }
    }

    /// Every key's cell, at one moment.
    var cells: [Cell] {
        state.withLock { $0.entries.values.flatMap { $0.map(\.cell) } }
    }

    /// Drops every key whose cell is not being built, and its instance; returns what it dropped,
    /// for the caller to release outside any lock, since keys and instances run user code when
    /// they go.
    func reset() -> [Any] {
        state.withLock { state in
            var dropped: [Any] = []
            for (hash, entries) in state.entries {
                var kept: [Entry] = []
                for entry in entries {
                    // The cell's lock is taken inside this one, never the other way around; one
                    // lock of the cell both checks for a build and retires it.
                    let (isRetired, value) = entry.cell.retireUnlessBuilding()
                    if isRetired {
                        dropped.append(entry)
                        if let value { dropped.append(value) }
                    } else {
                        kept.append(entry)
                    }
                }
                state.entries[hash] = kept.isEmpty ? nil : kept
            }
            return dropped
        }
    }
}
