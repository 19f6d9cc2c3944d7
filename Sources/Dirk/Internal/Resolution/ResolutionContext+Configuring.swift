extension ResolutionContext {
    // MARK: Configuring

    /// Whether a `configure:` closure is running or waiting to run on this thread.
    var isConfiguring: Bool { configurationDepth > 0 }

    /// Whether a build that ends now must be held until the resolution ends: a `configure:` closure
    /// of an enclosing step still runs on this thread, or the resolution took another agent's
    /// half-configured instance; the build's value may refer to either.
    var mustHoldNewBuilds: Bool { isConfiguring || !borrowed.isEmpty }

    /// The builds that an instance held now may refer to half-configured (see `mustHoldNewBuilds`).
    var dependenciesOfHeldBuild: [BuildRecord] { borrowed.map(\.record) + configuring.map(\.record) }

    /// Records that the `configure:` closure of the build `record` begins on this thread; returns
    /// the mark after which what the resolution holds may refer to the instance. Pair every call with
    /// `endConfiguring()`.
    func beginConfiguring(_ record: BuildRecord) -> ConfigurationMark {
        let mark = (heldBuilds: heldBuilds.count, ownScoped: scoped.count)
        configurationDepth += 1
        configuring.append((record, mark))
        return mark
    }

    /// Records that the `configure:` closure of the build `record` has returned or thrown, or will
    /// not run.
    func endConfiguring(_ record: BuildRecord) {
        configurationDepth -= 1
        configuring.remove(at: configuring.lastIndex { $0.record == record }!)
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
            endConfiguring(pending.record)
            holdUntilResolutionEnds(pending.record, step: pending.step)
        }
    }

    // MARK: Held and borrowed builds

    /// Records that the held instance of the build `record`, made in the step `step`, is complete,
    /// with the builds it may refer to half-configured (`dependenciesOfHeldBuild`), and publishes it
    /// when the resolution ends.
    func holdUntilResolutionEnds(_ record: BuildRecord, step: Step) {
        record.cell.markConfigured(generation: record.generation, dependencies: dependenciesOfHeldBuild)
        heldBuilds.append((record.cell, record.generation, step, isConfiguring))
        endWork |= EndWork.builds
    }

    /// Drops what the resolution built since `mark`, while a `configure:` closure that has now thrown
    /// `failure` ran, and which may refer to its instance: the builds it holds, and the `scoped`
    /// instances of its own, which the provider builds anew if it is asked again.
    func dropBuilds(since mark: ConfigurationMark, because failure: BuildFailure) {
        dropHeldBuilds(since: mark.heldBuilds, because: failure)
        // Released after they are out of the list: deinitializers may run user code.
        var dropped = Array(scoped[mark.ownScoped...].reversed())
        scoped.removeSubrange(mark.ownScoped...)
        // Each goes as it is popped, first the first kept.
        while dropped.popLast() != nil {}
    }

    /// Ends, instead of publishing them, the builds held since `mark`: built while a `configure:`
    /// closure that has now thrown ran, or after the resolution took an instance whose build then
    /// failed (`failure` tells which), they may refer to an instance that is dropped, so none of them
    /// may be kept. Their own builds did not fail: their waiters look again, and build anew. A
    /// resolution that took one of their instances learns of `failure`.
    func dropHeldBuilds(since mark: Int, because failure: BuildFailure) {
        guard heldBuilds.count > mark else { return }
        let dropped = heldBuilds[mark...]
        heldBuilds.removeSubrange(mark...)
        // A build taken after the dropped ones were held is followed, from now on, by the builds
        // held from `mark` on.
        for index in borrowed.indices where borrowed[index].heldMark > mark {
            borrowed[index].heldMark = mark
        }
        for build in dropped.reversed() { build.cell.drop(generation: build.generation, because: failure) }
    }

    /// Waits, when the resolution ends, until the build `record`, whose instance the resolution
    /// took, and every build it depends on, is configured.
    func waitWhenResolutionEnds(for record: BuildRecord) {
        // What may refer to the instance: what the resolution holds from now on, and what it held
        // since the outermost `configure:` still running began.
        borrowed.append((record, configuring.first?.mark.heldBuilds ?? heldBuilds.count))
        endWork |= EndWork.builds
    }

    /// Waits until every build whose instance the resolution took, and every build those depend on,
    /// is configured; if one failed instead, drops what the resolution held since the earliest taking
    /// that led to a failure, and returns the first failure.
    ///
    /// Each taking's walk stops at the first failure it reaches. `outcomes` holds how the builds
    /// already waited for stood, which are not waited for again; each walk follows every build it
    /// reaches, since a build found configured by another walk may depend on one that failed.
    func waitForBorrowedBuilds() -> ResolutionEndFailure? {
        let borrowed = self.borrowed
        self.borrowed = []
        var (failure, failedSince): (BuildFailure?, Int) = (nil, heldBuilds.count)
        var outcomes: [BuildRecord: ConfigurationOutcome] = [:]
        for (record, heldMark) in borrowed {
            var (pending, seen): ([BuildRecord], Set<BuildRecord>) = ([record], [])
            walk: while let build = pending.popLast() {
                guard seen.insert(build).inserted else { continue }
                let outcome = outcomes[build] ?? build.cell.waitUntilConfigured(build, as: self)
                outcomes[build] = outcome
                switch outcome {
                case .configured(let dependencies): pending += dependencies
                case .failed(let failed):
                    (failure, failedSince) = (failure ?? failed, min(failedSince, heldMark))
                    break walk
                }
            }
        }
        guard let failure else { return nil }
        dropHeldBuilds(since: failedSince, because: failure)
        return ResolutionEndFailure(failure: failure)
    }
}
