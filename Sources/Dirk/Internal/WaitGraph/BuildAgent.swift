/// A thread or a task that builds instances and waits for instances that others build: one node of
/// the wait graph that `CycleDetector` walks.
///
/// Each thread's `ResolutionContext` is its agent; each task that resolves async providers has a
/// `TaskAgent`. An agent that waits for a build records what it waits for in `waitingFor`, before
/// it looks for a cycle, so that of two agents that close a cycle at the same time at least one
/// sees the other's wait (each records under its own lock, then reads the other's under the
/// other's lock).
@usableFromInline package class BuildAgent: @unchecked Sendable {
    // `waiting` is guarded by its own lock.
    private let waiting = Locked<WaitTarget?>.make(nil)

    init() {}

    /// An agent that is neither a thread's nor a task's, for tests of the wait graph.
    package static func standalone() -> BuildAgent { BuildAgent() }

    /// The build this agent is waiting for, if any.
    @usableFromInline package final var waitingFor: WaitTarget? {
        get { waiting.withLock { $0 } }
        set { waiting.withLock { $0 = newValue } }
    }

    /// The agent's steps from the one that runs `frame` up to the innermost, for cycle messages.
    ///
    /// Another agent calls it only while this agent is blocked in a closed cycle of waits, so the
    /// steps cannot change meanwhile; the lock of `waitingFor`, which this agent wrote after its
    /// last step, orders the reads after the writes.
    package func steps(from frame: Frame) -> [Frame] { [frame] }
}

/// A build that an agent waits for: a cell and the generation of the build under way in it, so
/// that a cell rebuilt meanwhile is never mistaken for the same build.
@usableFromInline package struct WaitTarget {
    @usableFromInline package let cell: any WaitableCell
    @usableFromInline package let generation: UInt64
    /// Whether the agent waits only until the build's instance is configured, at its resolution's
    /// end, rather than for the instance: such an agent can take nothing to break a cycle.
    @usableFromInline package let forConfiguration: Bool

    @usableFromInline package init(cell: any WaitableCell, generation: UInt64, forConfiguration: Bool = false)
    {
        self.cell = cell
        self.generation = generation
        self.forConfiguration = forConfiguration
    }

    package func isSame(as other: WaitTarget) -> Bool {
        cell === other.cell && generation == other.generation
    }
}

/// A cell whose builds agents can wait for.
@usableFromInline package protocol WaitableCell: AnyObject {
    /// The build of generation `generation`, if it is still under way: who builds it, what it
    /// builds, and whether its instance exists already (it is being configured, or held until its
    /// builder's resolution ends).
    func build(ofGeneration generation: UInt64) -> BuildSnapshot?

    /// Wakes `agent`'s wait for this cell, so that it looks for a cycle again.
    func wakeToRecheck(_ agent: BuildAgent)
}

/// What the wait graph needs of one build under way.
@usableFromInline package struct BuildSnapshot {
    package let builder: BuildAgent
    package let frame: Frame
    package let hasInstance: Bool
}
