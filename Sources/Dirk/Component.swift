import CDirk

/// A scope of your application that owns modules and the instances they cache.
///
/// Subclass `Component` for each scope (the application, a signed-in session, a feature, a
/// screen, a server request) and declare typed accessors for its modules and parents:
///
/// ```swift
/// final class AppComponent: Component, @unchecked Sendable {
///     var data: DataModule { module() }
///     var network: NetworkModule { module() }
/// }
///
/// final class FeatureComponent: Component, @unchecked Sendable {
///     var app: AppComponent { parent() }
///     var feature: FeatureModule { module() }
/// }
///
/// let app = AppComponent()
///     .module(NetworkModule.self) { StubNetworkModule($0) }
/// let feature = FeatureComponent().parent { app }
/// ```
///
/// **Lifetime.** A component owns its modules and everything they cache; releasing the last
/// reference to it releases them all. A component holds its parents strongly and never its
/// children, so a feature component can come and go under a long-lived application component.
/// There is no global container: whoever owns the scope owns the component. Nothing may resolve
/// through a component once its release has begun: its accessors stop the program with a message
/// when its own `deinit` uses them.
///
/// **Thread safety.** Every member may be called from any thread at once. Swift 6 asks each
/// subclass to restate `@unchecked Sendable`; that is safe as long as the subclass adds no
/// mutable stored state of its own (accessors are computed properties). See <doc:ConcurrencyGuarantees>.
open class Component: CustomDebugStringConvertible, @unchecked Sendable {
    /// The lock, and the lock-free tables of modules, parents and ancestors and the component's
    /// flags, in the component's own memory: read and written only through `core`. It must stay
    /// the class's first stored property, and `lockedState` its second (see `InlineLocked`).
    /// (Swift's run-time exclusivity checks are off for both: nothing accesses them but the check
    /// of their layout, which every new component makes.)
    @exclusivity(unchecked) private var lockedWords = InlineLockedWords()
    /// The state that the lock guards: read and written only through `core`.
    @exclusivity(unchecked) private var lockedState = ComponentState()

    /// Creates a component with no modules and no parents; add them with
    /// ``module(file:line:_:)`` and ``parent(file:line:_:)``, or let ``module(file:line:)``
    /// create modules on first use.
    public init() {
        // The storage starts with every word zero: the lock free, the tables empty, the flags and
        // the count of observers clear. Its layout is checked in every build: Swift documents how
        // it lays out a struct, not yet how it lays out a class's stored properties.
        precondition(
            storageLayoutHolds, "Dirk internal error: a component's storage is not where its core looks")
        core.locked.initialize()
    }

    /// The lock, the state it guards and the lock-free words, in the component's memory. Modules
    /// of the component keep it too, so that they can read whether the component was released
    /// and, if not, reach its state, after the component may have gone (see `ComponentCore`).
    @inlinable var core: ComponentCore { ComponentCore(of: self) }

    deinit {
        // What the component keeps is released after the lock, since deinitializers run user code.
        // A module that goes from now on leaves its slots where they are (see `AnyModule.deinit`).
        let core = core
        var (registered, caches, recording, unclosed) = core.withLock { $0.takeAll() }
        warnIfReleasedOpen(unclosed)
        // Only a recording component watches its ancestors.
        if let recording { Component.unwatch(recording.watched, for: recording.recorder) }
        // First the modules that nobody else holds go, with their caches.
        registered.removeAll()
        modules.destroy()
        // The modules left are held by someone else: they must stop serving the instances of a
        // released scope, so their caches are emptied. The slots that only `caches` still refers
        // to belong to modules that are gone, and go with it.
        caches.removeUniquelyReferenced()
        Component.empty(caches)
        ancestors.destroy()
        parents.destroy()
        // Nobody takes the lock any more: whoever does holds the component, or got it from
        // `UnownedReference.strongIfAlive()`, which fails from the start of this `deinit`.
        core.locked.destroy()
    }

    /// Whether the component's storage lies where `ComponentCore` finds it, with room for every
    /// word. A test hook: it checks the layout that `InlineLocked` assumes.
    /// Describes the component without building anything: its type, its modules, its parents and
    /// how many of its providers hold a cached instance. `print(app)` shows it:
    ///
    /// ```text
    /// AppComponent(modules: NetworkModule, StorageModule; parents: none; cached: 2 providers)
    /// ```
    ///
    /// ``trace(_:)`` and ``dependencyGraph()`` tell more.
    open var debugDescription: String {
        let graph = dependencyGraph()
        let cached = graph.nodes.count { $0.isCached }
        func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
        return "\(graph.component)(modules: \(list(graph.modules)); parents: \(list(graph.parents)); "
            + "cached: \(cached) provider\(cached == 1 ? "" : "s"))"
    }

    package var storageLayoutHolds: Bool {
        core.locked.layoutHolds(words: &lockedWords, state: &lockedState, wordCount: ComponentWords.count)
    }

    /// The component's address, as its modules know it (`AnyModule.componentReference`); compared
    /// only.
    var identity: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

    /// The modules in use, by the types accessors ask for. Written while holding `core`'s lock.
    @inlinable var modules: PublishedTable<TypeKey, AnyModule> {
        PublishedTable(
            words: core.extraWords + ComponentWords.modules, inlineCapacity: ComponentWords.inlineModules)
    }

    /// The parents registered with `parent(_:)`. Written while holding `core`'s lock.
    @inlinable var parents: PublishedTable<TypeKey, Component> {
        PublishedTable(words: core.extraWords + ComponentWords.parents, inlineCapacity: 1)
    }

    /// The ancestors that `parent()` found by searching, by the type asked for. Written while
    /// holding `core`'s lock.
    @inlinable var ancestors: PublishedTable<TypeKey, Component> {
        PublishedTable(words: core.extraWords + ComponentWords.ancestors, inlineCapacity: 1)
    }

    /// Stops the program if the component's release has begun: the accessor of `member`, a module
    /// or parent type, was used from its `deinit`, where nothing can resolve.
    ///
    /// Accessors check inline and call this only on their slow path, so that the message is built
    /// outside the accessors, which are inlined into every caller. (Speed only.)
    @inlinable
    final func checkNotDeinitializing(_ member: Any.Type, file: StaticString, line: UInt) {
        if ObjectLifetime.isDeinitializing(self) {
            Diagnostics.usedWhileDeinitializing(member, component: type(of: self), file: file, line: line)
        }
    }
}

/// A component's lock, the state it guards and its lock-free words, which the component keeps in
/// its own memory (`InlineLocked`), so that a component is one allocation.
///
/// The component uses them while it holds itself. A module keeps its component's core beside an
/// `unowned` reference to the component (`AnyModule.componentReference`), which keeps the
/// component's memory allocated, though not the component alive, for as long as the module exists:
/// the module reads the words, and takes the lock only through a strong reference to the component
/// (`UnownedReference.strongIfAlive()`), which fails once the component's `deinit` has begun.
@usableFromInline struct ComponentCore {
    @usableFromInline let locked: InlineLocked<ComponentState>

    /// The core of `component`.
    @inlinable init(of component: Component) {
        locked = InlineLocked(of: component)
    }

    /// The lock-free words (`ComponentWords`).
    @inlinable var extraWords: UnsafeMutablePointer<UInt> { locked.extraWords }

    /// Runs `body` with the state while holding the lock. Only the component itself, or code that
    /// holds it, may call this.
    func withLock<Result, Failure: Error>(_ body: (inout ComponentState) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try locked.withLock(body)
    }

    /// How many observers watch the component's providers: traces under way, overrides being set
    /// up, its own recording and the recordings of its descendants. Written only while holding the
    /// lock, by `addObservers(_:in:)`; read without it by modules whose slots are not made yet,
    /// which have no count of their own (see `AnyModule.attention`).
    @inlinable var observers: UInt { dirk_load_relaxed(extraWords + ComponentWords.observers) }

    /// Adds `delta`, which may be negative, to the component's observers and to those of every
    /// module's slots made for it; call it while holding the lock, with the state it guards.
    func addObservers(_ delta: Int, in state: inout ComponentState) {
        dirk_store_relaxed(extraWords + ComponentWords.observers, observers &+ UInt(bitPattern: delta))
        state.caches.forEachElement { $0.addObservers(delta) }
    }

    /// Adds `delta`, which may be negative, to the component's observers, taking the lock.
    func addObservers(_ delta: Int) {
        withLock { addObservers(delta, in: &$0) }
    }

    /// Set once `shutdown()` has begun.
    private var shutDownFlag: AtomicFlag { AtomicFlag(word: extraWords + ComponentWords.isShutDown) }

    /// Whether `shutdown()` has begun.
    var isShutDown: Bool { shutDownFlag.isSet }

    /// What sends a call of a module without slots to the pipeline: observers, or a shutdown.
    @inlinable var attention: UInt {
        observers | dirk_load_relaxed(extraWords + ComponentWords.isShutDown)
    }

    /// Marks the component shut down and sends every provider call to the pipeline, which refuses
    /// the calls that no build under way makes. Call it holding the lock.
    func markShutDown(in state: inout ComponentState) {
        shutDownFlag.set()
        state.caches.forEachElement { $0.addFreshRequests(1) }
    }
}

/// What a component's lock guards.
@usableFromInline struct ComponentState {
    /// The default modules being created.
    var moduleCreations = InlineList<ModuleCreation>()
    /// The provider slots of every module made for the component that has made its slots,
    /// registered or not, in the order the slots were made: what `reset()` empties, and the
    /// component's release empties for the modules that outlive it.
    var caches = InlineList<ProviderSlots>()
    /// Whether `parent()` has searched beyond the registered types, after which registering
    /// another parent could change earlier answers.
    var hasSearchedParents = false
    /// Modules registered with `.module { }` and not used yet, by the types they stand in for;
    /// the first `module()` of a type publishes its module in `Component.modules`.
    var registeredModules: [ObjectIdentifier: AnyModule] = [:]
    /// The contributions this component made, by element type.
    var contributions: [ObjectIdentifier: [ContributionRecord]] = [:]
    /// What the component records of its resolutions, while recording is on.
    var recording: DependencyRecord?
    /// The recorders of the recording components that watch this one: itself, if it records, and
    /// its recording descendants, which they do not keep alive. A parent registered on this
    /// component is watched for each of them.
    var recorders: [Recorder] = []
    /// How to close the instances built with a close action, in the order they were built.
    var closeActions: [CloseAction] = []
    /// The shutdown under way or done, which every `shutdown()` call awaits.
    var shutdown: Task<[ShutdownError.Failure], Never>?

    /// Takes what the component's release releases, leaving nothing, and the close actions of a
    /// component that was never shut down, which never ran.
    mutating func takeAll() -> (
        registered: [ObjectIdentifier: AnyModule], caches: InlineList<ProviderSlots>,
        recording: DependencyRecord?, unclosed: [CloseAction]
    ) {
        defer { (registeredModules, caches, recording, closeActions) = ([:], InlineList(), nil, []) }
        return (registeredModules, caches, recording, shutdown == nil ? closeActions : [])
    }
}

/// Where a component's lock-free tables lie among its core's words.
@usableFromInline enum ComponentWords {
    /// How many modules a component keeps before it allocates a table for more.
    @inlinable static var inlineModules: Int { 4 }
    @inlinable static var modules: Int { 0 }
    @inlinable static var ancestors: Int {
        modules + PublishedTable<TypeKey, AnyModule>.wordCount(inline: inlineModules)
    }
    @inlinable static var parents: Int { ancestors + PublishedTable<TypeKey, Component>.wordCount(inline: 1) }
    /// How many observers watch the component's providers (see `ComponentCore.observers`).
    @inlinable static var observers: Int { parents + PublishedTable<TypeKey, Component>.wordCount(inline: 1) }
    /// Whether the component has been registered as another's parent.
    @inlinable static var hasChildren: Int { observers + 1 }
    /// One once `shutdown()` has begun: every provider call then takes the pipeline, which refuses it.
    @inlinable static var isShutDown: Int { hasChildren + 1 }
    static var count: Int { isShutDown + 1 }
}
