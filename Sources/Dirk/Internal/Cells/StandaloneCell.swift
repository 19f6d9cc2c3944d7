/// A cell that is its own host, for a handle's value: one state machine under its own lock.
package final class StandaloneCell: Locked<(machine: OnceStateMachine, serials: UInt64)>, CellHost {
    // Shared between threads, though `ManagedBuffer` does not let it say so: the state is guarded by
    // the lock of `Locked`.

    /// An empty cell.
    package static func make() -> StandaloneCell { make((OnceStateMachine(), 0)) }

    /// The cell, as the drivers resolve it.
    package var reference: CellReference {
        CellReference(host: self, key: .standalone(ObjectIdentifier(self)))
    }

    /// The ready value, read under the lock; nil when the cell is not ready.
    package var readyValue: AnyObject? { withLock { $0.machine.readyValue } }

    package func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim {
        withLock { $0.machine.claim(by: agent, step: step, serials: &$0.serials) }
    }

    package func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool {
        withLock { body(&$0.machine, &$0.serials) }
        return true
    }

    package func drop(_ key: CellKey) -> OnceStateMachine? { nil }
}
