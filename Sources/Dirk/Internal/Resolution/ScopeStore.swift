/// A `scoped` instance that a synchronous resolution keeps: the provider's cell key, the instance,
/// and the provider's module, which the resolution keeps alive so that no other module takes its
/// address, and key, meanwhile.
typealias ScopedInstance = (key: CellKey, value: AnyObject, owner: AnyObject)

/// The `scoped` instances of one async resolution, which its tasks and the synchronous resolutions
/// inside it share.
///
/// Each instance lives in its provider's cell in the component's table, under the number of the
/// resolution (`id`), so that the resolution's tasks that ask at once wait for one build and share
/// it; the store lists those cells, and drops them when the resolution ends. A synchronous
/// resolution inside it keeps what it took in its own list too, so that it keeps one instance per
/// provider if the async resolution ends first (in a `Task { }` that outlives it).
final class ScopeStore: Sendable {
    private let state: Locked<State> = .make(State())

    struct State {
        /// The cells of the resolution's instances, with their hosts and owners.
        var cells: [(host: any CellHost, key: CellKey, owner: AnyObject)] = []
        var hasEnded = false
    }

    /// Which instance the resolution's instances are built as in their cells: the number of the
    /// resolution, the store's address.
    var id: CellKey.Instance { .asyncResolution(UInt(bitPattern: ObjectIdentifier(self))) }

    /// Whether the resolution that owns the store has ended: an unstructured task that inherited the
    /// store then opens a store of its own.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// Lists the cell at `key` in `host`, of the module `owner`, as one of the resolution's, to drop
    /// when it ends; a cell made after the end is dropped now, by its caller.
    func list(_ key: CellKey, in host: any CellHost, owner: AnyObject) -> Bool {
        state.withLock { state in
            guard !state.hasEnded else { return false }
            if !state.cells.contains(where: { $0.key == key && $0.host === host }) {
                state.cells.append((host, key, owner))
            }
            return true
        }
    }

    /// Ends the resolution: drops its cells, releasing their instances after each host's lock, in the
    /// order they were made.
    func end() {
        let cells = state.withLock { state in
            defer { (state.hasEnded, state.cells) = (true, []) }
            return state.cells
        }
        for cell in cells { withExtendedLifetime(cell.host.drop(cell.key)) {} }
    }
}
