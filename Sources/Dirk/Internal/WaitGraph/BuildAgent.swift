/// A thread or a task that builds instances and waits for instances that others build: one node of
/// the wait graph that `CycleDetector` walks.
///
/// Each thread's `ResolutionContext` is its agent; each task that resolves async providers has a
/// `TaskAgent`. An agent that waits for a build records what it waits for in `waitingFor`, under its
/// own lock, before it joins the build's waiters and before it looks for a cycle. So of two agents
/// that close a cycle at the same time at least one sees the other's wait (each records under its
/// own lock, then reads the other's under the other's lock); and an agent seen among a build's
/// waiters has recorded its wait, for whoever follows the chain through it.
@usableFromInline package class BuildAgent: @unchecked Sendable {
    /// The build this agent is waiting for, if any; read and written under the agent's lock.
    package var waitingFor: WaitTarget? {
        get { preconditionFailure("Dirk internal error: an agent of no kind") }
        set { preconditionFailure("Dirk internal error: an agent of no kind") }
    }

    /// An agent that is neither a thread's nor a task's, for tests of the wait graph: it records
    /// what it waits for, and has no steps.
    package static func standalone() -> BuildAgent { LockedWaitAgent() }

    /// The agent's steps from the one that runs `step` up to the innermost, for cycle messages.
    ///
    /// Another agent calls it only while this agent is blocked in a closed cycle of waits, so the
    /// steps cannot change meanwhile; the lock of `waitingFor`, which this agent wrote after its
    /// last step, orders the reads after the writes.
    package func steps(from step: Step) -> [Step] { [step] }
}

/// A build that an agent waits for: a cell (its host and key) and the generation of the build under
/// way in it, so that a cell rebuilt meanwhile is never mistaken for the same build.
package struct WaitTarget {
    package let host: any WaitableHost
    package let key: CellKey
    package let generation: UInt64
    /// Whether the agent waits only until the build's instance is configured, at its resolution's
    /// end, rather than for the instance: such an agent can take nothing to break a cycle.
    package let forConfiguration: Bool

    package init(host: any WaitableHost, key: CellKey, generation: UInt64, forConfiguration: Bool = false) {
        self.host = host
        self.key = key
        self.generation = generation
        self.forConfiguration = forConfiguration
    }

    /// Whether `other` is the same wait: for the same build, and for the same end of it.
    package func isSame(as other: WaitTarget) -> Bool {
        host === other.host && key == other.key && generation == other.generation
            && forConfiguration == other.forConfiguration
    }

    /// The build, if it is still under way.
    var build: BuildSnapshot? { host.build(at: key, generation: generation) }
}

/// Where cells live whose builds agents can wait for.
package protocol WaitableHost: AnyObject {
    /// The build of generation `generation` in the cell at `key`, if it is still under way: who
    /// builds it, what it builds, and whether its instance exists already (it is being configured,
    /// or held until its builder's resolution ends).
    func build(at key: CellKey, generation: UInt64) -> BuildSnapshot?

    /// Wakes `agent`'s wait for the cell at `key`, so that it looks for a cycle again.
    func wakeToRecheck(_ agent: BuildAgent, at key: CellKey)
}

/// What the wait graph needs of one build under way.
package struct BuildSnapshot {
    package let builder: BuildAgent
    package let step: Step
    package let hasInstance: Bool
}

/// An agent that keeps what it waits for under a lock of its own: a thread's (`ResolutionContext`),
/// and, as it is, an agent for tests of the wait graph (`BuildAgent.standalone()`).
@usableFromInline package class LockedWaitAgent: BuildAgent, @unchecked Sendable {
    // `waiting` is guarded by its own lock.
    private let waiting = Locked<WaitTarget?>.make(nil)

    package override var waitingFor: WaitTarget? {
        get { waiting.withLock { $0 } }
        set { waiting.withLock { $0 = newValue } }
    }
}
