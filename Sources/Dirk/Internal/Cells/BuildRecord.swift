/// How a build whose instance others could see ended, for those that saw it: set if it failed.
/// Made when the build's instance is first held (`OnceStateMachine.holdInstance`), and shared by
/// every record of that build, so that an agent that asks after the build ended (when its cell
/// keeps nothing of it) still learns that it failed.
///
/// Read and written only under the lock of the build's host, which the failure is recorded under:
/// an agent that finds the build ended there finds its failure too.
package final class BuildOutcome: @unchecked Sendable {
    package var failure: BuildFailure?
    package init() {}
}

/// One build whose instance others could see: its cell, the generation of the build in it, and
/// its outcome.
@usableFromInline package struct BuildRecord: Hashable {
    package let cell: CellReference
    package let generation: UInt64
    package let outcome: BuildOutcome

    package init(cell: CellReference, generation: UInt64, outcome: BuildOutcome) {
        self.cell = cell
        self.generation = generation
        self.outcome = outcome
    }

    @usableFromInline package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.cell.host === rhs.cell.host && lhs.cell.key == rhs.cell.key && lhs.generation == rhs.generation
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(cell.host))
        hasher.combine(cell.key)
        hasher.combine(generation)
    }
}

/// What a resolution that took a build's instance, or depends on one that did, learns when it waits
/// for that build's configuration.
package enum ConfigurationOutcome {
    /// The instance is configured, or was published: it is complete once the builds it depends on
    /// are (none, for a published one).
    case configured(dependsOn: [BuildRecord])
    /// The build failed: its instance was dropped, and whatever refers to it must go too.
    case failed(BuildFailure)
}
