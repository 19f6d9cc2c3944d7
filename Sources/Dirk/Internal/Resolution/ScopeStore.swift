/// The cells of one resolution's `scoped` instances: a thread's resolution's, or an async
/// resolution's, which its tasks and the synchronous resolutions inside them share.
///
/// Each instance lives in its provider's cell in the component's table, under the number that the
/// component gave the scope (`CellKey.Instance.scope`), so that the tasks that ask at once wait for
/// one build and share it, and a call that needs its own provider finds its build under way. A host
/// never gives a number twice, so a cell that outlives its scope is found by no later one. The store
/// lists those cells, and drops each when the resolution ends, including one whose build is still
/// under way, which then ends leaving no value (`OnceStateMachine.drop()`).
@usableFromInline final class ScopeStore: Sendable {
    private let state: Locked<State> = .make(State())

    /// Every field is guarded by the store's lock.
    struct State {
        /// The number each host gave the scope, by the host's identity.
        var numbers: [(host: ObjectIdentifier, number: UInt64)] = []
        /// The cells of the resolution's instances, in the order they were listed.
        var cells: [ListedCell] = []
        var hasEnded = false
    }

    /// A cell of a resolution's `scoped` instance: its host, its key there, and the module that owns
    /// it, which the store keeps alive so that no other module takes its address, and key, meanwhile.
    struct ListedCell {
        let host: any CellHost
        let key: CellKey
        let owner: AnyObject
    }

    /// Whether the resolution that owns the store has ended: a task's call that shares it then opens
    /// a store of its own.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// The cell of the provider whose key is `provider`, of the module `owner`, for this scope in
    /// `host`, listed as one of the resolution's, to drop when it ends, unless it has ended already
    /// (`isListed`): the caller then drops the cell itself once it resolved it.
    ///
    /// The cell lies under the number `host` gave the scope, asked for (`newNumber`, a number the host
    /// never gives again) on the first use of `host`. The number is the same before and after the
    /// store ends, so that a resolution that keeps using the store finds the builds under way in it.
    func list(
        owner: AnyObject, provider: ProviderKey, in host: any CellHost, newNumber: () -> UInt64
    ) -> (key: CellKey, isListed: Bool) {
        let identity = ObjectIdentifier(host)
        // Asked for outside the store's lock, which is never held with a host's; two tasks that ask
        // at once agree on the first one recorded.
        let known = state.withLock { state in state.numbers.contains { $0.host == identity } }
        let new = known ? 0 : newNumber()
        return state.withLock { state in
            var number = state.numbers.first { $0.host == identity }?.number
            if number == nil {
                number = new
                state.numbers.append((identity, new))
            }
            let key = CellKey(owner: ObjectIdentifier(owner), provider: provider, instance: .scope(number!))
            guard !state.hasEnded else { return (key, false) }
            if !state.cells.contains(where: { $0.key == key && $0.host === host }) {
                state.cells.append(ListedCell(host: host, key: key, owner: owner))
            }
            return (key, true)
        }
    }

    /// Opens the store again for a new resolution of the thread that owns it, which a thread's
    /// context reuses for each of its resolutions: the hosts will give it new numbers.
    func reopen() {
        state.withLock { state in
            state.hasEnded = false
            state.numbers.removeAll(keepingCapacity: true)
        }
    }

    /// Ends the resolution: drops its cells, in the order they were listed, releasing what each held
    /// after its host's lock. A cell whose build is under way goes when that build ends.
    func end() {
        let cells = state.withLock { state in
            let cells = state.cells
            state.hasEnded = true
            state.cells = []
            return cells
        }
        for cell in cells { withExtendedLifetime(cell.host.drop(cell.key)) {} }
    }
}
