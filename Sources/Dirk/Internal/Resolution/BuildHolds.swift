/// What one agent, a thread's resolution or a task, keeps of the builds whose instances it may see
/// half-configured: one value, with one rule, that a thread's `ResolutionContext` keeps as its own
/// and a `TaskAgent` keeps under its lock.
///
/// A build's instance exists before its `configure:` closure has run: its own agent sees it while
/// the closure runs, and an agent in a cycle of waits with the build takes it
/// (`CellReference.takeInstance`). What the agent builds meanwhile may refer to such an instance,
/// so it is held, not published, and marked configured with the builds it may refer to. When the
/// agent's builds end, it waits until every instance it took, and every build those depend on, is
/// configured (`BorrowedWalk`); then it publishes what it held, or, if one of those builds failed,
/// first drops what it held since it took the instance that led to the failure.
@usableFromInline struct BuildHolds {
    /// A build the agent holds, with its step, and whether a `configure:` closure ran on the agent
    /// when it was held.
    @usableFromInline typealias Held = (record: BuildRecord, step: Step, whileConfiguring: Bool)

    /// The builds whose `configure:` closures run or wait to run on the agent, outermost first, each
    /// with how many builds the agent held when its closure began: what it holds from there may
    /// refer to it. A build that caches nothing (a `fresh` call's), which no other agent can see, has
    /// no record.
    private(set) var configuring: [(record: BuildRecord?, heldMark: Int)] = []
    /// Builds of other agents whose instance the agent took while they were being configured, each
    /// with the mark from which the builds it holds may refer to that instance.
    @usableFromInline private(set) var borrowed: [(record: BuildRecord, heldMark: Int)] = []
    /// The builds the agent holds, in the order it held them.
    @usableFromInline private(set) var held: [Held] = []

    /// Whether the agent holds builds, or took another agent's half-configured instance: what its
    /// builds' end waits for and publishes.
    @usableFromInline var hasBuilds: Bool { !held.isEmpty || !borrowed.isEmpty }

    /// Whether a build whose instance exists now must be held: a `configure:` closure runs on the
    /// agent, or the agent took another agent's half-configured instance; the instance may refer to
    /// either.
    var mustHold: Bool { !configuring.isEmpty || !borrowed.isEmpty }

    /// Records that the `configure:` closure of the build `record` begins, or will run; returns the
    /// mark after which what the agent holds may refer to the instance. Pair every call with
    /// `endConfiguring(_:)`.
    mutating func beginConfiguring(_ record: BuildRecord?) -> Int {
        configuring.append((record, held.count))
        return held.count
    }

    /// Records that the `configure:` closure of the build `record` has returned or thrown, or will
    /// not run.
    mutating func endConfiguring(_ record: BuildRecord?) {
        configuring.remove(at: configuring.lastIndex { $0.record == record }!)
    }

    /// Holds the build `record`, made in the step `step`, whose instance is complete, until the
    /// agent's builds end; returns the builds its instance may refer to half-configured: those whose
    /// instances the agent took, and those whose `configure:` closures run on it.
    mutating func hold(_ record: BuildRecord, step: Step) -> [BuildRecord] {
        held.append((record, step, !configuring.isEmpty))
        return borrowed.map(\.record) + configuring.compactMap(\.record)
    }

    /// Records that the agent took the instance of the build `record`, whose configuration it waits
    /// for when its builds end. What may refer to the instance: what the agent holds from now on,
    /// and what it held since the outermost `configure:` still running began.
    mutating func borrow(_ record: BuildRecord) {
        borrowed.append((record, configuring.first?.heldMark ?? held.count))
    }

    /// Takes out the builds held since `mark`, to drop or publish. An instance taken after them is
    /// followed, from now on, by the builds held from `mark` on.
    mutating func takeHeld(since mark: Int) -> ArraySlice<Held> {
        guard held.count > mark else { return [] }
        defer { held.removeSubrange(mark...) }
        for index in borrowed.indices where borrowed[index].heldMark > mark {
            borrowed[index].heldMark = mark
        }
        return held[mark...]
    }

    /// Takes out the instances the agent took, to wait for as its builds end.
    mutating func takeBorrowed() -> BorrowedWalk {
        defer { borrowed = [] }
        return BorrowedWalk(borrowed: borrowed[...])
    }

    /// Takes out what the agent's builds end with, once `walk` has waited for every instance the
    /// agent took (see `BorrowedWalk`): the builds held since the taking that led to a failure, if
    /// one of those builds failed, to drop, then the rest, to publish (`finish(_:)`).
    mutating func end(after walk: BorrowedWalk) -> EndedBuilds {
        let dropped = walk.failure.map { takeHeld(since: $0.since) } ?? []
        return EndedBuilds(dropped: dropped, published: takeHeld(since: 0), failure: walk.failure?.failure)
    }

    /// Drops and publishes what the agent's builds ended with (`end(after:)`), after its lock; returns
    /// why the agent's outermost call must throw, if one of the builds it took from failed.
    static func finish(_ ended: EndedBuilds) -> ResolutionEndFailure? {
        if let failure = ended.failure { drop(ended.dropped, because: failure) }
        for build in ended.published { build.record.cell.publish(generation: build.record.generation) }
        return ended.failure.map { ResolutionEndFailure(failure: $0) }
    }

    /// Drops `builds`, newest first: they may refer to an instance whose build failed with
    /// `failure`. Their own builds did not fail: their waiters look again, and build anew. An agent
    /// that took one of their instances learns of `failure`.
    static func drop(_ builds: ArraySlice<Held>, because failure: BuildFailure) {
        for build in builds.reversed() {
            build.record.cell.end(generation: build.record.generation, telling: .recheck, causedBy: failure)
        }
    }
}

/// What an agent's builds end with (`BuildHolds.end(after:)`): the builds to drop, because of
/// `failure`, and those to publish.
struct EndedBuilds {
    let dropped: ArraySlice<BuildHolds.Held>
    let published: ArraySlice<BuildHolds.Held>
    let failure: BuildFailure?
}

/// The wait at the end of an agent's builds, for threads and tasks alike, which differ only in how
/// they wait for one build (`CellReference.waitUntilConfigured(_:as:)`): from each instance the agent
/// took, every build it depends on, until each is configured or one has failed.
///
/// Each taking's walk stops at the first failure it reaches. A build is waited for once: the
/// outcomes already known are reused, and each walk follows every build it reaches, since a build
/// found configured by another walk may depend on one that failed.
struct BorrowedWalk {
    private var borrowed: ArraySlice<(record: BuildRecord, heldMark: Int)>
    /// The builds of the taking under way still to look at, those it has looked at, and the mark from
    /// which the builds the agent held may refer to its instance.
    private var pending: [BuildRecord] = []
    private var seen: Set<BuildRecord> = []
    private var heldMark = 0
    private var outcomes: [BuildRecord: ConfigurationOutcome] = [:]
    /// The first failure found, and the mark from which the builds the agent held may refer to an
    /// instance that failed: the earliest taking that led to a failure.
    private(set) var failure: (failure: BuildFailure, since: Int)?

    init(borrowed: ArraySlice<(record: BuildRecord, heldMark: Int)>) { self.borrowed = borrowed }

    /// The next build to wait for, whose outcome `record(_:of:)` takes; nil once the walk is done.
    mutating func next() -> BuildRecord? {
        while true {
            if let build = pending.popLast() {
                guard seen.insert(build).inserted else { continue }
                guard let outcome = outcomes[build] else { return build }
                record(outcome, of: build)
            } else if let taking = borrowed.popFirst() {
                pending = [taking.record]
                seen = []
                heldMark = taking.heldMark
            } else {
                return nil
            }
        }
    }

    /// Records how the build `build` stood when waited for.
    mutating func record(_ outcome: ConfigurationOutcome, of build: BuildRecord) {
        outcomes[build] = outcome
        switch outcome {
        case .configured(let dependencies): pending += dependencies
        case .failed(let failed):
            failure = (failure?.failure ?? failed, min(failure?.since ?? heldMark, heldMark))
            pending = []
        }
    }
}
