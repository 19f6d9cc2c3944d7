/// What one agent keeps of the resolution it runs a part of, until that part ends: the components
/// it entered, the builds it holds, the `configure:` closures that wait for its factories, and its
/// `scoped` instances. One value, with one set of rules, that a thread's `ResolutionContext` keeps in
/// place and a task's `TaskAgent` keeps under its lock.
///
/// A resolution begins with an outermost provider call and ends when that call returns. A thread's
/// resolution that runs inside a task is a part of that task's async resolution: when it ends, it
/// hands that task's agent its components, which the agent keeps until its own part ends
/// (`TaskAgent.adopt(_:)`).
@usableFromInline struct Resolution {
    /// The components this part entered, each once, each counted in its gate.
    @usableFromInline let entered = EnteredComponents()
    /// The builds it holds, the instances it took half-configured, and the `configure:` closures
    /// under way (see `BuildHolds`).
    @usableFromInline var holds = BuildHolds()
    /// How many synchronous factories run in this part, of builds and of providers that cache
    /// nothing: while one does, a synchronous provider's `configure:` closure that cannot throw waits
    /// (`pendingConfigurations`), since it may need that factory's instance. A task's part runs
    /// none: its factories are async (see `ConfigureKind`).
    @usableFromInline var runningFactories = 0
    /// The `configure:` closures that wait for the factories under way to return, oldest first. The
    /// last factory to return runs them, newest first, so that each finds every instance of its
    /// cycle built.
    @usableFromInline var pendingConfigurations: [PendingConfiguration] = []
    /// The store of the resolution's `scoped` instances, once a `scoped` provider asked, and whether
    /// this part ends it: a store of its own, not the async resolution's that it runs a part of.
    @usableFromInline var scope: ScopeStore?
    var ownsScope = false
    /// The `scoped` instances this part took, in the order it asked for them (see
    /// `ResolutionAgent.takenScoped(_:from:)`).
    var scoped: [ScopedInstance] = []

    /// Whether this part has anything to end when its outermost call returns: components it
    /// entered, builds it holds or took, or a scope. (A `configure:` closure that waits counts as
    /// configuring a build it holds.)
    @inlinable var hasWorkAtItsEnd: Bool { !entered.entries.isEmpty || scope != nil || holds.hasBuilds }

    // MARK: After a factory

    /// What the build of a provider whose factory has just returned does next (`AfterFactory`), for
    /// a thread and a task alike.
    ///
    /// A build with no `configure:`, which no waiting `configure:` may need and which need not be
    /// held, completes at once. Any other holds its instance, which only its builder sees until it is
    /// published; runs the `configure:` closures that waited for the factories to return, if none
    /// runs anymore; then its own `configure:`, at once, or once the factories under way return (see
    /// `ConfigureKind`).
    @inline(__always) func afterFactory(configure: ConfigureKind) -> AfterFactory {
        let runsPending = !pendingConfigurations.isEmpty && runningFactories == 0
        if configure == .none && !holds.mustHold && !runsPending { return .complete }
        let when: ConfigureTime =
            switch configure {
            case .none: .never
            case .atOnce: .now
            case .mayWait: runningFactories > 0 ? .whenFactoriesReturn : .now
            }
        return .settle(runsPending: runsPending, configure: when)
    }

    // MARK: Configuring

    /// How many builds, and how many `scoped` instances, this part held when a `configure:` closure
    /// began: what it holds from there may refer to the closure's instance.
    typealias ConfigurationMark = (heldBuilds: Int, ownScoped: Int)

    /// Records that the `configure:` closure of the build `record` (nil for a build that caches
    /// nothing) begins here, or will run; returns the mark after which what this part holds may refer
    /// to the instance. Pair every call with `holds.endConfiguring(_:)`.
    mutating func beginConfiguring(_ record: BuildRecord?) -> ConfigurationMark {
        (heldBuilds: holds.beginConfiguring(record), ownScoped: scoped.count)
    }

    /// Takes out what this part built since `mark`, while a `configure:` closure that has now thrown
    /// ran, and which may refer to its instance: the builds it holds, to drop, and the `scoped`
    /// instances it took, which the provider builds anew if it is asked again (see `drop(_:because:)`).
    mutating func takeBuilt(since mark: ConfigurationMark) -> BuiltSince {
        let dropped = Array(scoped[mark.ownScoped...])
        scoped.removeSubrange(mark.ownScoped...)
        return BuiltSince(held: holds.takeHeld(since: mark.heldBuilds), scoped: dropped)
    }

    /// Drops what `takeBuilt(since:)` took out, because of `failure`, after any lock: the builds,
    /// whose waiters look again, then the `scoped` instances, newest first, whose deinitializers may
    /// run user code.
    static func drop(_ built: BuiltSince, because failure: BuildFailure) {
        BuildHolds.drop(built.held, because: failure)
        var scoped = built.scoped
        while scoped.popLast() != nil {}
    }
}

/// What a part of a resolution built since a `configure:` closure began (`Resolution.takeBuilt`).
struct BuiltSince {
    let held: ArraySlice<BuildHolds.Held>
    let scoped: [ScopedInstance]
}

/// What kind of `configure:` closure a provider has, which decides when it runs.
///
/// A synchronous provider's that cannot throw waits for the synchronous factories under way on its
/// thread to return: a factory runs to its end without suspending, so whoever waits for the build
/// meanwhile waits for a thread that goes on. No closure waits for an async factory: the build would
/// stay held while that factory awaits other tasks, and a thread that asks for it meanwhile would
/// block a thread of the cooperative pool until then, which can leave none to run those tasks.
enum ConfigureKind {
    /// The provider has none.
    case none
    /// It runs as soon as its factory returns: it can throw, so that its error reaches its own
    /// provider's caller, or it is an async provider's.
    case atOnce
    /// A synchronous provider's that cannot throw: it may wait for the factories under way on its
    /// thread to return.
    case mayWait
}

/// When a build's `configure:` closure runs.
enum ConfigureTime {
    /// It has none.
    case never
    /// Now, before the build is held or published.
    case now
    /// When the last factory under way returns (`Resolution.pendingConfigurations`).
    case whenFactoriesReturn
}

/// What a build whose factory has returned does next (`Resolution.afterFactory`).
enum AfterFactory: Equatable {
    /// Its value becomes the cell's at once, and its waiters get it.
    case complete
    /// Its instance is held; the closures that waited for the last factory run first if
    /// `runsPending`; then its own `configure:` runs, or waits, as `configure` says; then it is held
    /// or published (`ResolutionAgent.publishOrHold(_:step:always:)`).
    case settle(runsPending: Bool, configure: ConfigureTime)
}

/// A `configure:` closure of a synchronous provider that waits for the factories under way to
/// return: the build whose instance it completes, which counts as configuring from the moment its
/// instance exists, its step, and the closure, which cannot throw.
@usableFromInline struct PendingConfiguration {
    let record: BuildRecord
    let step: Step
    let configure: () -> Void
}

/// A `scoped` instance that a part of a resolution took.
struct ScopedInstance {
    /// The provider's own cell key.
    let key: CellKey
    /// The store it was taken from, compared only: the part keeps it alive, through
    /// `Resolution.scope`, while it uses it.
    let store: ObjectIdentifier
    let value: AnyObject
    /// The provider's module, which the part keeps alive so that no other module takes its address,
    /// and key, meanwhile.
    let owner: AnyObject
}
