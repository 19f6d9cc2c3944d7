extension ResolutionContext {
    // MARK: Configuring

    /// Records that the `configure:` closure of the build `record` begins on this thread, or will
    /// run; returns the mark after which what the resolution holds may refer to the instance. Pair
    /// every call with `holds.endConfiguring(_:)`.
    func beginConfiguring(_ record: BuildRecord) -> ConfigurationMark {
        (heldBuilds: holds.beginConfiguring(record), ownScoped: scoped.count)
    }

    /// Runs the `configure:` closures that waited for the factories of this thread, newest first,
    /// each in its own step, and holds their builds until the resolution ends. None can throw: only
    /// a closure that cannot waits (see `CellReference.build`).
    func runPendingConfigurations() {
        while let pending = pendingConfigurations.popLast() {
            enter(pending.step)
            do { try pending.configure() } catch {
                preconditionFailure("Dirk internal error: a configure: that cannot throw threw \(error)")
            }
            _ = leave()
            holds.endConfiguring(pending.record)
            holdUntilResolutionEnds(pending.record, step: pending.step)
        }
    }

    // MARK: Held and borrowed builds

    /// Records that the held instance of the build `record`, made in the step `step`, is complete,
    /// with the builds it may refer to half-configured, and publishes it when the resolution ends.
    func holdUntilResolutionEnds(_ record: BuildRecord, step: Step) {
        record.cell.markConfigured(
            generation: record.generation, dependencies: holds.hold(record, step: step))
        endWork |= EndWork.builds
    }

    /// Drops what the resolution built since `mark`, while a `configure:` closure that has now thrown
    /// `failure` ran, and which may refer to its instance: the builds it holds, and the `scoped`
    /// instances of its own, which the provider builds anew if it is asked again.
    func dropBuilds(since mark: ConfigurationMark, because failure: BuildFailure) {
        BuildHolds.drop(holds.takeHeld(since: mark.heldBuilds), because: failure)
        // Released after they are out of the list: deinitializers may run user code.
        var dropped = Array(scoped[mark.ownScoped...].reversed())
        scoped.removeSubrange(mark.ownScoped...)
        // Each goes as it is popped, first the first kept.
        while dropped.popLast() != nil {}
    }

}
