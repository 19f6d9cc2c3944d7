/// Where build-once cells live, each a `OnceStateMachine` under the host's one lock: a component's
/// table (its providers' caches, their keys' and the `scoped` instances of resolutions under way),
/// or a handle's own cell (`StandaloneCell`).
package protocol CellHost: WaitableHost {
    /// What `agent`, asking for the cell at `key` in the step `step`, does next: the cell is made
    /// first if the host makes it on demand; `.retired` when the host holds none there and makes
    /// none (a key that `reset()` dropped).
    func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim

    /// Runs `body` under the host's lock with the cell at `key` and the host's serials; returns false,
    /// without running it, when the host holds no cell there. Not generic, so that a call through the
    /// protocol needs no type's metadata at run time (see `CellReference.withMachine`).
    func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool
}

extension CellHost {
    package func build(at key: CellKey, generation: UInt64) -> BuildSnapshot? {
        let cell = CellReference(host: self, key: key)
        return cell.withMachine { machine, _ in machine.build(ofGeneration: generation) } ?? nil
    }

    package func wakeToRecheck(_ agent: BuildAgent, at key: CellKey) {
        let cell = CellReference(host: self, key: key)
        cell.withMachine { machine, _ in machine.dequeueWaiters(of: agent, telling: .recheck) }?.run()
    }
}
