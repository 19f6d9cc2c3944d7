/// A build another agent runs, whose half-configured instance a resolution took to break a cycle
/// through `configure:`: the resolution waits until it is configured before it ends.
@usableFromInline package protocol BorrowedBuild: AnyObject {
    /// Waits until the build `record` is configured, or has ended, as the step of `agent`'s
    /// resolution end; returns the builds its instance depends on, which the resolution waits for
    /// in turn, or how it failed.
    func waitUntilConfigured(_ record: BuildRecord, as agent: BuildAgent) -> ConfigurationOutcome
}

/// What a resolution that took a build's instance, or depends on one that did, learns when it waits
/// for that build's configuration.
@usableFromInline package enum ConfigurationOutcome {
    /// The instance is configured, or was published: it is complete once the builds it depends on
    /// are (none, for a published one).
    case configured(dependsOn: [BuildRecord])
    /// The build failed: its instance was dropped, and whatever refers to it must go too.
    case failed(BuildFailure)
}

/// How a build whose instance others could see ended, for those that saw it: set if it failed.
/// Made when the build's instance is first held (`OnceStateMachine.holdInstance`), and shared by
/// every record of that build, so that an agent that asks after the build ended (when its cell
/// keeps nothing of it) still learns that it failed.
///
/// Read and written only under the lock of the build's cell, which the failure is recorded under:
/// an agent that finds the build ended there finds its failure too.
@usableFromInline package final class BuildOutcome: @unchecked Sendable {
    @usableFromInline package var failure: BuildFailure?
    @usableFromInline package init() {}
}

/// One build whose instance others could see: its cell, the generation of the build in it, and
/// its outcome.
@usableFromInline package struct BuildRecord: Hashable {
    @usableFromInline package let cell: any BorrowedBuild
    @usableFromInline package let generation: UInt64
    @usableFromInline package let outcome: BuildOutcome

    @usableFromInline package init(cell: any BorrowedBuild, generation: UInt64, outcome: BuildOutcome) {
        self.cell = cell
        self.generation = generation
        self.outcome = outcome
    }

    @usableFromInline package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.cell === rhs.cell && lhs.generation == rhs.generation
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(cell))
        hasher.combine(generation)
    }
}
