/// The state of one build-once cell, as a value: Dirk's one build-once mechanism, behind
/// providers' caches, keys, `scoped` instances and handles.
///
/// ```text
/// empty ──claim──▶ building(builder, waiters) ──instance built──▶ building with instance
///   ▲                 │                                               │   (configuring, or held
///   │                 └── factory threw: every waiter gets the error  │    until the builder's
///   │                                                                 ▼    resolution ends)
///   └──────────── reset ◀────────────────────────────────────────── ready
///
/// ```
///
/// A cell lives in a host (`CellHost`): a component's table, or a handle's own cell. Its
/// mutating methods run under the host's lock, never call user code, and return what to do next;
/// the drivers (`CellReference.resolve`) perform those actions (resuming waiters, releasing values)
/// outside the lock. Generations and waiters are numbered by the host (`serials`), so that no two
/// builds or waits of one host share a number, even in a cell that the host dropped and made anew. One build runs at a time; every caller that arrives meanwhile waits for that
/// build and gets its instance or its error, so a factory runs once for all of them.
@usableFromInline package struct OnceStateMachine {
    package typealias Value = AnyObject

    /// One build under way (`build`).
    package struct Build {
        package let builder: BuildAgent
        package let generation: UInt64
        /// The instance, once the factory returned and the build holds it (`holdInstance`); nil
        /// for a build that completes at once, which then ends with none of these to release.
        package var held: Held?
        /// The agents waiting: for the instance, or (`forConfiguration`) only until the instance
        /// is configured, as a resolution that took it half-configured does before it ends.
        package var waiters: [Waiting] = []
    }

    /// The instance of a build that holds it: seen by the builder (and by a waiter that breaks a
    /// cycle) while `configure:` runs or until the builder's resolution ends.
    package struct Held {
        package let instance: Value
        /// How the build ends, for the agents that see its instance before then.
        package let outcome: BuildOutcome
        /// Set when the instance is complete (its `configure:` returned), to the builds it may
        /// refer to half-configured: those whose instances the builder had taken, and its own whose
        /// `configure:` still ran. A resolution that takes this instance waits for them too. The
        /// instance is published when its builder's resolution ends.
        package var dependencies: [BuildRecord]?

        /// Whether the instance is complete.
        package var isConfigured: Bool { dependencies != nil }
    }

    // The state is kept in variables rather than one enum, so that a cached read touches one
    // word: `ready` holds the value of a ready cell, `build` the build under way (and `buildStep`
    // its step); at most one of `ready` and `build` is set.
    package var build: Build?
    /// The step that builds, for cycle paths: set when a build begins, and meaningful only while
    /// `build` is set (it is plain words, left in place when the build ends). It is kept beside
    /// the build, not in it: a build that held a step of so many words would be copied and
    /// destroyed through its type's witnesses; a step alone is copied as plain words.
    package var buildStep: Step?
    /// The strategy of the provider whose cell it is (`none` for a handle's): a `weak`
    /// cell keeps its value only while someone else holds it, in a `WeakBox` in `ready`; every other
    /// keeps it until it is reset, in `ready`.
    @usableFromInline package let strategy: ProviderStrategy
    var keepsWeakly: Bool { strategy == .weak }
    /// The value, for a cell that is not `weak`; for one that is, the box that refers to it.
    @usableFromInline var ready: AnyObject?

    /// The type of the cell's owner, which names its provider: the module's, for insight.
    package let ownerType: Any.Type

    /// Whether the host dropped the cell while a build was under way in it (a `scoped` instance of a
    /// scope that ended): the build ends as it would, but leaves no value, and the host removes the
    /// cell then (`isDone`).
    package private(set) var isDropped = false

    /// An empty cell's state, for a provider of `strategy` of an `ownerType`.
    package init(strategy: ProviderStrategy = .none, ownerType: Any.Type = Never.self) {
        self.strategy = strategy
        self.ownerType = ownerType
    }

    /// The ready value, if there is one. A weak value is read as a strong reference, which may become
    /// the last one: whoever reads it under the host's lock lets it go only after the lock, since
    /// its `deinit` may run user code.
    package var readyValue: Value? { keepsWeakly ? (ready as! WeakBox?)?.object : ready }

    /// Whether the cell holds a value now. It reads the value (see `readyValue`) and lets it go at
    /// once: never under the host's lock.
    package var hasValue: Bool { readyValue != nil }

    // MARK: Claiming

    /// What an agent that wants the value does next.
    package enum Claim {
        /// Use the ready value.
        case ready(Value)
        /// Build it: the cell is now building generation `generation` for this agent.
        case build(generation: UInt64)
        /// The agent is building it and the instance exists: use it (a cycle through
        /// `configure:`, or a build held until the agent's resolution ends).
        case ownInstance(Value)
        /// The agent is building generation `generation` and the instance does not exist yet: a
        /// cycle. (The build's step is not carried here: a claim is answered in registers only while
        /// no case carries more than a word.)
        case cycle(generation: UInt64)
        /// Another agent builds generation `generation`: wait for it.
        case wait(generation: UInt64)
        /// The host dropped the cell (a key that `reset()` dropped): find the one it holds now.
        case retired
        /// Another provider with the same key caches with this strategy: a clash.
        case clash(ProviderStrategy)
    }

    /// What the driver of a cell (`CellReference`) does once it has let go of the host's lock, after
    /// a mutation that ends a build or a wait: the machine decides, the driver performs (`run()`).
    package enum Action {
        /// Nothing: no agent waited.
        case none
        /// Let go of what the cell gave up (a failed build's instance, the records of the builds it
        /// depended on), whose deinitializers may run user code; then resume `waiters` with `event`.
        case resume(_ waiters: [Waiter], with: WaitEvent, releasing: Released = (nil, nil))

        /// The waiters that the action resumes.
        package var waiters: [Waiter] { if case .resume(let waiters, _, _) = self { waiters } else { [] } }

        /// What a cell gives up, to release after its host's lock: a failed build's instance, and the
        /// records of the builds it depended on. (Speed only: a type of its own, not `Any`, so that an
        /// action is copied without calling into the runtime.)
        package typealias Released = (instance: AnyObject?, dependencies: [BuildRecord]?)

        /// Performs the action, never under the host's lock: releases what the cell gave up first,
        /// so that a waiter, once resumed, finds a dropped instance gone.
        @inline(__always) package consuming func run() {
            if case .resume(let waiters, let event, (let instance, let dependencies)) = consume self {
                _ = consume instance
                _ = consume dependencies
                for waiter in waiters { waiter.resume(with: event) }
            }
        }
    }

    package mutating func claim(by agent: BuildAgent, step: Step, serials: inout UInt64) -> Claim {
        defer { debugCheck() }
        if let build {
            if build.builder === agent {
                if let held = build.held { return .ownInstance(held.instance) }
                return .cycle(generation: build.generation)
            }
            return .wait(generation: build.generation)
        }
        if ready != nil {
            if let value = readyValue { return .ready(value) }
            // A weak value that is gone: its box goes now, since a building cell holds no value.
            ready = nil
        }
        serials &+= 1
        build = Build(builder: agent, generation: serials)
        buildStep = step
        return .build(generation: serials)
    }

    // MARK: Waiting

    /// Adds `waiter` to the build of generation `generation`, if it is still under way; returns
    /// its identifier, or nil when the caller should claim again.
    package mutating func enqueue(
        _ waiter: Waiter, of agent: BuildAgent, generation: UInt64, serials: inout UInt64
    ) -> UInt64? {
        defer { debugCheck() }
        guard build?.generation == generation else { return nil }
        serials &+= 1
        build!.waiters.append((id: serials, agent: agent, waiter: waiter, forConfiguration: false))
        return serials
    }

    /// How the build of generation `generation`, whose outcome is `outcome`, stands once it no
    /// longer keeps a resolution that saw its instance waiting (its build ended, or its instance
    /// is configured); otherwise adds `waiter`, woken when that happens, and returns nil.
    package mutating func configurationOutcome(
        generation: UInt64, outcome: BuildOutcome, orEnqueue waiter: Waiter, of agent: BuildAgent,
        serials: inout UInt64
    ) -> ConfigurationOutcome? {
        defer { debugCheck() }
        guard let build, build.generation == generation else {
            // Failed, and recorded so under this lock; or published, which happened only once
            // everything it depends on was configured.
            return outcome.failure.map { .failed($0) } ?? .configured(dependsOn: [])
        }
        if let dependencies = build.held?.dependencies { return .configured(dependsOn: dependencies) }
        serials &+= 1
        self.build!.waiters.append((id: serials, agent: agent, waiter: waiter, forConfiguration: true))
        return nil
    }

    /// Removes the waiters of `agent`, to wake them with `event`: `.cancelled`, for a task that was
    /// cancelled, or `.recheck`, so that they look for a cycle again.
    package mutating func dequeueWaiters(of agent: BuildAgent, telling event: WaitEvent) -> Action {
        defer { debugCheck() }
        let dequeued = build?.waiters.filter { $0.agent === agent }.map(\.waiter) ?? []
        build?.waiters.removeAll { $0.agent === agent }
        return dequeued.isEmpty ? .none : .resume(dequeued, with: event)
    }

    /// The instance of generation `generation`, and how that build will end, if it is still under
    /// way, its instance exists, and the waiter `id` still waits for it: removes that waiter, which
    /// no longer waits. A waiter already removed (woken, or cancelled) takes nothing: it is resumed
    /// once, by whoever removed it.
    package mutating func takeInstance(generation: UInt64, dequeuing id: UInt64) -> (
        instance: Value, outcome: BuildOutcome
    )? {
        defer { debugCheck() }
        guard build?.generation == generation, let held = build?.held,
            let index = build?.waiters.firstIndex(where: { $0.id == id })
        else { return nil }
        build!.waiters.remove(at: index)
        return (held.instance, held.outcome)
    }

    /// The build of generation `generation`, if it is still under way, for the wait graph.
    package func build(ofGeneration generation: UInt64) -> BuildSnapshot? {
        guard let build, build.generation == generation else { return nil }
        return BuildSnapshot(builder: build.builder, step: buildStep!, hasInstance: build.held != nil)
    }

    // MARK: Ending a build

    /// Records that the instance held for generation `generation` is complete, and the builds it
    /// depends on; wakes the waiters that waited only for that, to look again.
    package mutating func markConfigured(generation: UInt64, dependencies: [BuildRecord]) -> Action {
        defer { debugCheck() }
        guard build?.generation == generation, build?.held != nil else {
            preconditionFailure("Dirk internal error: a build was configured that holds no instance")
        }
        build!.held!.dependencies = dependencies
        let woken = build!.waiters.filter(\.forConfiguration).map(\.waiter)
        build!.waiters.removeAll(where: \.forConfiguration)
        return woken.isEmpty ? .none : .resume(woken, with: .recheck)
    }

    /// Records the instance of generation `generation`, which only its builder sees until
    /// `publish(generation:)`, unless another agent takes it to break a cycle; returns the
    /// outcome that the agents which see the instance share.
    @discardableResult
    package mutating func holdInstance(_ instance: Value, generation: UInt64) -> BuildOutcome {
        defer { debugCheck() }
        checkUnderWay(generation, "an instance was held for a build")
        let outcome = BuildOutcome()
        build!.held = Held(instance: instance, outcome: outcome)
        return outcome
    }

    /// Makes the instance of generation `generation` the cell's value, unless the cell was dropped;
    /// resumes the waiters with it, and lets go of the records of the builds it depended on.
    package mutating func publish(generation: UInt64) -> Action {
        defer { debugCheck() }
        checkUnderWay(generation, "a build was published")
        let finished = build.take()!
        guard let held = finished.held else {
            preconditionFailure("Dirk internal error: a build was published before its instance was held")
        }
        if !isDropped { ready = keepsWeakly ? WeakBox(held.instance) : held.instance }
        return .resume(
            finished.waiters.map(\.waiter), with: .finished(.success(held.instance)),
            releasing: (nil, held.dependencies))
    }

    /// Makes `value`, built as generation `generation` and never held, the cell's value, unless the
    /// cell was dropped; resumes the waiters with it. The one step of a build that nobody needed to see before it
    /// was ready: `holdInstance` then `publish`, without handing the value back.
    package mutating func complete(with value: Value, generation: UInt64) -> Action {
        defer { debugCheck() }
        checkUnderWay(generation, "a build was completed")
        let finished = build.take()!
        precondition(finished.held == nil, "Dirk internal error: a held instance was completed")
        if !isDropped { ready = keepsWeakly ? WeakBox(value) : value }
        return finished.waiters.isEmpty
            ? .none : .resume(finished.waiters.map(\.waiter), with: .finished(.success(value)))
    }

    /// Ends generation `generation` with no value, telling the waiters `event`: its factory or
    /// `configure:` threw the error that `event` finishes with; or, with `.recheck`, its builder gave
    /// up, or its instance may refer to one that `cause` dropped. Lets go of the instance, if any,
    /// and of the records of the builds it depended on. Agents that saw the instance learn of the
    /// failure through the build's outcome.
    package mutating func fail(
        generation: UInt64, telling event: WaitEvent, causedBy cause: BuildFailure? = nil
    ) -> Action {
        defer { debugCheck() }
        checkUnderWay(generation, "a build failed")
        let failed = build.take()!
        // A build holds an instance (and an outcome) only once its factory returned: it ends with no
        // value only because its `configure:` threw, or because another build's failure dropped it.
        failed.held?.outcome.failure = cause ?? event.error.map { BuildFailure(error: $0, step: buildStep!) }
        precondition(
            failed.held == nil || failed.held?.outcome.failure != nil,
            "Dirk internal error: a build whose instance others could see ended for no reason")
        return .resume(
            failed.waiters.map(\.waiter), with: event,
            releasing: (failed.held?.instance, failed.held?.dependencies))
    }

    /// Stops the program unless the build of generation `generation` is under way; `what` says what
    /// happened to it, for the message.
    private func checkUnderWay(_ generation: UInt64, _ what: String) {
        precondition(build?.generation == generation, "Dirk internal error: \(what) that is not under way")
    }

    // MARK: Dropping and resetting

    /// Drops the cell: whether its host may remove it now, since no build is under way in it;
    /// otherwise the build under way ends as it would, leaving no value, and the host removes the
    /// cell then (`isDone`). Every agent that waits for that build still gets its outcome.
    package mutating func drop() -> Bool {
        defer { debugCheck() }
        guard build != nil else { return true }
        isDropped = true
        return false
    }

    /// Whether the host should remove the cell now: it was dropped, and its build has ended.
    package var isDone: Bool { isDropped && build == nil }

    /// Empties a ready cell and returns what it held, to release outside the lock. A build under way
    /// is left to finish: its instance is cached when it is done.
    package mutating func reset() -> AnyObject? {
        defer { debugCheck() }
        // A weak cell's box goes here: it refers to nothing strongly, and releasing it runs no user
        // code.
        let value = ready.take()
        return keepsWeakly ? nil : value
    }

    /// Whether a build is under way.
    package var isBuilding: Bool { build != nil }

    /// How many agents wait for the build under way.
    package var waiterCount: Int { build?.waiters.count ?? 0 }

    /// Checks the invariants after every mutation, in debug builds.
    @inline(__always) private func debugCheck() {
        #if DEBUG
        checkInvariants()
        #endif
    }

    /// Stops the program if the state is inconsistent: a build and a value at once, a build with no
    /// step, waiters with duplicate identifiers or out of order, a configured build still keeping
    /// waiters for its configuration, or a weak value held strongly. It runs under the host's lock,
    /// so it reads no weak value: that would make a strong reference, which could be the last one.
    package func checkInvariants() {
        precondition(ready == nil || build == nil, "Dirk internal error: a cell both ready and building")
        precondition(!isDropped || ready == nil, "Dirk internal error: a dropped cell holds a value")
        precondition(
            !keepsWeakly || ready == nil || ready is WeakBox,
            "Dirk internal error: a weak cell holds its value strongly")
        if let build {
            precondition(buildStep != nil, "Dirk internal error: a build with no step")
            let ids = build.waiters.map(\.id)
            precondition(Set(ids).count == ids.count, "Dirk internal error: a waiter enqueued twice")
            precondition(ids == ids.sorted(), "Dirk internal error: waiters out of order")
            precondition(
                build.held?.isConfigured != true || !build.waiters.contains(where: \.forConfiguration),
                "Dirk internal error: a configured build still keeps waiters for its configuration")
        }
    }
}

/// A `weak` cell's value: the box refers to it weakly, so that the cell keeps it only while someone
/// else holds it.
final class WeakBox {
    weak var object: AnyObject?

    init(_ object: AnyObject) { self.object = object }
}
