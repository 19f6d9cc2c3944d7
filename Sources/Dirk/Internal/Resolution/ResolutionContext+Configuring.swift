extension ResolutionContext {
    // MARK: Configuring

    /// Runs the `configure:` closures that waited for the factories of this thread, newest first,
    /// each in its own step, and holds their builds until the resolution ends. None can throw: only
    /// a closure that cannot waits (see `Resolution.afterFactory`).
    func runPendingConfigurations() {
        while let pending = record.pendingConfigurations.popLast() {
            enter(pending.step)
            pending.configure()
            _ = leave()
            record.holds.endConfiguring(pending.record)
            publishOrHold(pending.record, step: pending.step, always: true)
        }
    }

    /// Waits until the factories under way return to run `configure`, which cannot throw, the
    /// `configure:` closure of the build `build`, made in the step `step`: the build counts as
    /// configuring from now on, and is held until the resolution ends.
    func deferConfiguration(of build: BuildRecord, step: Step, _ configure: @escaping () -> Void) {
        _ = record.beginConfiguring(build)
        record.pendingConfigurations.append(
            PendingConfiguration(record: build, step: step, configure: configure))
    }

    /// Runs `body`, the `configure:` closure of a build that caches nothing (a `fresh` call's), which
    /// no other agent can see, as a `configure:` that runs on this thread: what the resolution builds
    /// meanwhile is held, since it may refer to that instance.
    func configureUncached(_ body: () throws -> Void) rethrows {
        _ = record.beginConfiguring(nil)
        defer { record.holds.endConfiguring(nil) }
        try body()
    }
}
