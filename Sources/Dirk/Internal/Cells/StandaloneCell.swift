/// A cell that is its own host, for a handle's value: one state machine under its own lock.
package final class StandaloneCell: CellHost, Sendable {
    private let state: Locked<(machine: OnceStateMachine, serials: UInt64)> = .make((OnceStateMachine(), 0))

    /// An empty cell.
    package init() {}

    /// The cell, as the drivers resolve it.
    package var reference: CellReference {
        CellReference(host: self, key: .standalone(ObjectIdentifier(self)))
    }

    /// The ready value, read under the lock; nil when the cell is not ready.
    package var readyValue: AnyObject? { state.withLock { $0.machine.readyValue } }

    package func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim {
        state.withLock { $0.machine.claim(by: agent, step: step, serials: &$0.serials) }
    }

    package func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool {
        state.withLock { body(&$0.machine, &$0.serials) }
        return true
    }
}
