/// A build another agent runs, whose half-configured instance a resolution took to break a cycle
/// through `configure:`: the resolution waits until it is configured before it ends.
@usableFromInline package protocol BorrowedBuild: AnyObject {
    /// Waits until the build of generation `generation` is configured, or has ended, as the step
    /// of `agent`'s resolution end; returns the builds its instance depends on, which the
    /// resolution waits for in turn.
    func waitUntilConfigured(generation: UInt64, as agent: ResolutionContext) -> [BuildRecord]
}

/// One build: its cell, and the generation of the build in it.
@usableFromInline package struct BuildRecord: Hashable {
    @usableFromInline package let cell: any BorrowedBuild
    @usableFromInline package let generation: UInt64

    @usableFromInline package init(cell: any BorrowedBuild, generation: UInt64) {
        self.cell = cell
        self.generation = generation
    }

    @usableFromInline package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.cell === rhs.cell && lhs.generation == rhs.generation
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(cell))
        hasher.combine(generation)
    }
}
