/// The cells of one resolution's `scoped` instances, under a lock of its own: a thread's
/// resolution's, or an async resolution's, which its tasks and the synchronous resolutions inside
/// them share.
///
/// The store is its cells' host, so that the tasks that ask at once wait for one build and share
/// it, and a call that needs its own provider finds its build under way. A cell lies under its
/// provider's own key, and goes with the scope: nothing of it ever reaches a component's table, and
/// a later resolution, which has a store of its own, never finds it.
///
/// A task's store keeps its cells until its resolution ends (`leave(taking:owns:)`), which drops
/// them, including one whose build is under way, which then ends leaving no value
/// (`OnceStateMachine.drop()`). A thread's store keeps none past its build: its resolution, the
/// only one to use it, keeps each instance it took (`Resolution.scoped`). So does a store that has
/// ended, for the calls that still reach it from a part of its resolution that outlived it.
@usableFromInline final class ScopeStore: CellHost, Sendable {
    private let state: Locked<State> = .make(State())
    /// Whether tasks share the store: it then keeps its cells until it ends.
    private let isShared: Bool

    /// Every field is guarded by the store's lock.
    struct State {
        var table = CellTable()
        /// The modules whose instances this store holds that a part which has ended took (`leave`): kept
        /// alive with the store, so that no other module takes their addresses, and keys, meanwhile.
        /// (A part keeps the modules of the instances it took until it ends.)
        var owners: [AnyObject] = []
        var hasEnded = false
    }

    /// A store that tasks share (`isShared`), or a thread's own.
    init(isShared: Bool) { self.isShared = isShared }

    /// Whether the resolution that owns the store has ended: a task's call that shares it then opens
    /// a store of its own.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    package func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim {
        state.withLock { state in
            let claim = state.table.claim(key, by: agent, step: step, makes: true)
            if !isShared || state.hasEnded {
                // A cell that the store does not keep goes as its build ends; it holds no value yet.
                state.table.dropClaimed(key)
            }
            return claim
        }
    }

    package func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool {
        state.withLock { $0.table.withCell(key, body) }
    }

    /// Ends a part of the resolution that used the store, and took `scoped` from it: the resolution,
    /// if the part `owns` the store, whose cells it then drops; otherwise, the store keeps the modules
    /// of those instances while it keeps their cells. What it drops goes after its lock.
    func leave(taking scoped: [ScopedInstance], owns: Bool) {
        guard isShared else { return }
        var dropped: [Any] = []
        state.withLock { state in
            guard owns else {
                guard !state.hasEnded else { return }
                // Each module once: the parts of a long resolution may take many instances.
                for instance in scoped where !state.owners.contains(where: { $0 === instance.owner }) {
                    state.owners.append(instance.owner)
                }
                return
            }
            state.hasEnded = true
            dropped.append(state.owners)
            state.owners = []
            state.table.dropAll(into: &dropped)
        }
        withExtendedLifetime(dropped) {}
    }
}
