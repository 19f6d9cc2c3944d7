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
/// let feature = FeatureComponent().parent(app)
/// ```
///
/// **Lifetime.** A component owns its modules and everything they cache; releasing the last
/// reference to it releases them all. A component holds its parents strongly and never its
/// children, so a feature component can come and go under a long-lived application component.
/// There is no global container: whoever owns the scope owns the component. Nothing may resolve
/// through a component once its release has begun: its accessors stop the program with a message
/// when its own `deinit` uses them. A component that holds resources closes them with
/// ``shutdown(file:line:)``, or with ``withShutdown(isolation:_:file:line:)`` around the code that uses it.
///
/// **Thread safety.** Every member may be called from any thread at once. Swift 6 asks each
/// subclass to restate `@unchecked Sendable`; that is safe as long as the subclass adds no
/// mutable stored state of its own (accessors are computed properties). See <doc:ConcurrencyGuarantees>.
open class Component: CustomDebugStringConvertible, _ModuleOwner, @unchecked Sendable {
    /// Everything Dirk keeps for the component: its lock and the state it guards, its directory of
    /// modules and parents, and its gate. Its modules hold it too.
    @usableFromInline let storage: ComponentStorage

    /// Creates a component with no modules and no parents; add them with
    /// ``module(_:file:line:)`` and ``parent(_:as:file:line:)``, or let ``module(file:line:)-1dr3a``
    /// create modules on first use.
    public init() {
        storage = ComponentStorage.make()
        storage.bind(self)
    }

    deinit {
        // What the component keeps is released after the lock, since deinitializers run user code.
        let taken = storage.release()
        if let extras = taken.extras { warnIfReleasedOpen(extras) }
        // Only a recording component watches its ancestors.
        if let recording = taken.extras?.recording {
            Component.addObservers(-1, for: storage, to: recording.watched)
        }
        withExtendedLifetime(taken) {}
        storage.withDirectory { $0.destroy(retired: taken.retired) }
    }

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

    /// The component's address, compared only.
    @inlinable var identity: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

    /// Stops the program if the component's release has begun: the accessor of `member`, a module
    /// or parent type, was used from its `deinit`, where nothing can resolve.
    @inlinable final func checkNotDeinitializing(_ member: Any.Type, file: StaticString, line: UInt) {
        if ObjectLifetime.isDeinitializing(self) {
            Diagnostics.usedWhileDeinitializing(member, component: type(of: self), file: file, line: line)
        }
    }

    /// The directory's member of `kind` under `type`, unless the component's release has begun: what
    /// `module()` and `parent()` return at once; otherwise they take their slow path, which stops
    /// the program if the release has begun.
    @inlinable @inline(__always) final func liveMember(_ kind: MemberKind, _ type: Any.Type) -> AnyObject? {
        let member = storage.withDirectory { $0.member(kind, type) }
        return member == nil || ObjectLifetime.isDeinitializing(self) ? nil : member!.object
    }
}

/// Everything Dirk keeps for one component, in one `Locked` box's buffer that the component and its
/// modules hold: the state its lock guards, and words read without the lock.
///
/// A module holds the storage strongly and its component not at all: it reaches the component
/// through `component`, which asks the runtime whether the component is still alive. The state
/// keeps an `unowned` reference to the component, which keeps the component's memory, though not
/// the component, allocated for as long as the storage lives, so that the question can be asked.
@usableFromInline typealias ComponentStorage = LockBuffer<ComponentState>

/// The words of a component's storage that are read without its lock, each atomic: its index among
/// the box's extra words; the directory's take the words from `directory` on.
@usableFromInline enum ComponentWord: Int {
    /// The component's address, compared only, and given to the runtime by `component`.
    case address
    /// Fresh requests, one each for a shutdown and a release, and, in its high half, the observers
    /// (see `observer`): while it is zero, a cached read takes its shortest path.
    case attention
    /// The gate: twice the calls in, plus one once shutdown has begun (see `Component+Shutdown`).
    case gate
    /// Flags: `hasChildren`, `hasOverrides`, `isReleased`, `hasRegisteredModules`.
    case flags
    /// The directory of modules and parents.
    case directory
}

extension LockBuffer where State == ComponentState {
    static func make() -> ComponentStorage {
        Locked.make(ComponentState(), extraWords: ComponentWord.directory.rawValue + Directory.wordCount)
            .buffer
    }

    /// Records `component` as the storage's own; its initializer calls it once, before anyone else
    /// can reach the storage.
    func bind(_ component: Component) {
        withUnsharedState { $0.memoryKeeper = component }
        word(.address) { $0.release(component.identity) }
    }

    /// Runs `body` with the atomic word `word`.
    @inlinable @inline(__always)
    func word<Result>(_ word: ComponentWord, _ body: (AtomicWord) -> Result) -> Result {
        withExtraWords { body(AtomicWord($0 + word.rawValue)) }
    }

    /// The component's address, compared only, and given to the runtime by `component`.
    @inlinable var address: UInt { word(.address) { $0.relaxed } }

    /// The component, if it is still alive: a strong reference.
    @inlinable var component: Component? { ObjectLifetime.retainIfAlive(address, as: Component.self) }

    /// The attention word, read with no ordering: zero unless something asks cached reads to take
    /// the pipeline.
    @inlinable var attention: UInt { word(.attention) { $0.relaxed } }

    /// Adds `delta`, which may be negative, to the attention word.
    func addAttention(_ delta: Int) { _ = word(.attention) { $0.add(delta) } }

    /// The flags, read with no ordering.
    @inlinable var flags: UInt { word(.flags) { $0.relaxed } }

    /// Sets the flags `bits` and returns the flags before.
    @discardableResult func setFlags(_ bits: UInt) -> UInt { word(.flags) { $0.set(bits) } }

    /// Runs `body` with the gate.
    @inlinable @inline(__always)
    func withGate<Result>(_ body: (Gate) -> Result) -> Result { word(.gate) { body(Gate($0)) } }

    /// Runs `body` with the directory of modules and parents.
    @inlinable @inline(__always)
    func withDirectory<Result>(_ body: (Directory) -> Result) -> Result {
        withExtraWords { body(Directory(words: $0 + ComponentWord.directory.rawValue)) }
    }

    /// What one observer adds to the attention word: the observers' count is its high half.
    static var observer: UInt { 1 << (UInt.bitWidth / 2) }

    static var hasChildren: UInt { 1 }
    @inlinable static var hasOverrides: UInt { 2 }
    static var isReleased: UInt { 4 }
    static var hasRegisteredModules: UInt { 8 }

    /// The object the `single` at `key` (sync or async, as `strategy` tells) has cached, read under
    /// the lock; nil when it has none yet or the component's attention word is set, and the call must
    /// take its pipeline.
    @inlinable @inline(__always)
    func readyObject(for key: CellKey, strategy: ProviderStrategy) -> AnyObject? {
        guard attention == 0 else { return nil }
        return withLock { $0.table.ready(at: key, for: strategy) }
    }

    /// Marks the component released and takes what its release releases, leaving nothing: its cells,
    /// its registered modules, its recording, and the close actions that never ran.
    func release() -> ComponentState {
        setFlags(Self.isReleased)
        addAttention(1)
        return withLock { $0.takeAll() }
    }
}

extension LockBuffer: WaitableHost, CellHost where State == ComponentState {

    package func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim {
        withLock { $0.table.claim(key, by: agent, step: step, makes: key.keyNumber == 0) }
    }

    package func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool {
        withLock { $0.table.withCell(key, body) }
    }

    /// Records the strategy of `step`'s provider, whose own cell key is `own` (see
    /// `CellTable.record`), and stops the program if another provider at that key recorded another.
    func record(_ own: CellKey, step: Step) {
        if let other = withLock({ $0.table.record(own, step: step) }) {
            Diagnostics.providerClash(step, first: other)
        }
    }

}

/// What a component's lock guards.
@usableFromInline package struct ComponentState {
    /// The component, which the reference keeps allocated, though not alive (see `ComponentStorage`).
    unowned(safe) var memoryKeeper: Component? = nil
    /// The cells of its providers' caches and keys.
    @usableFromInline var table = CellTable()
    /// The directory's blocks that larger ones replaced (see `Directory`).
    var retired: [UnsafeMutablePointer<UInt>] = []
    /// Whether `parent()` has searched beyond the registered types, after which registering
    /// another parent could change earlier answers.
    var hasSearchedParents = false
    /// Where the component was first given a parent (`.parent(_:as:)`), for messages.
    var parentsGivenAt: (file: StaticString, line: UInt)?
    /// What the component keeps once it uses it, and most never do.
    var extras: ComponentExtras?

    /// Runs `body` with the component's extras, made first if need be.
    mutating func withExtras<Result>(_ body: (ComponentExtras) -> Result) -> Result {
        if extras == nil { extras = ComponentExtras() }
        return body(extras!)
    }

    /// Takes what the component's release releases, leaving nothing: its cells, its directory's
    /// retired blocks and its extras, in a state of their own, which no lock guards. (`memoryKeeper`
    /// stays: the component's memory must outlive its storage's users.)
    mutating func takeAll() -> ComponentState {
        var taken = ComponentState()
        swap(&taken.table, &table)
        swap(&taken.retired, &retired)
        swap(&taken.extras, &extras)
        return taken
    }
}

/// What a component keeps only once it uses it: registered modules, overrides, contributions, its
/// recording, its close actions and its shutdown. A class, so that a component that never uses it,
/// as most children do, keeps one word for it. Its component's lock guards every field.
final class ComponentExtras {
    /// Modules registered with `.module { }` and not used yet, by the types they stand in for; the
    /// first `module()` of a type publishes its module in the directory.
    var registeredModules: [ObjectIdentifier: AnyModule] = [:]
    /// Modules that lost a race to create them: another thread's was published (see
    /// `Component.uncachedModule(of:file:line:)`). Kept until the component goes.
    var racedModules: [AnyModule] = []
    /// Factories that replace providers (`Component.overriding`), by their cells' keys.
    var overrides: [CellKey: OverrideEntry] = [:]
    /// The contributions this component made, by element type.
    var contributions: [ObjectIdentifier: [ContributionRecord]] = [:]
    /// What the component records of its resolutions, while recording is on.
    var recording: DependencyRecord?
    /// The recorders of the recording components that watch this one: itself, if it records, and
    /// its recording descendants. A parent registered on this component is watched for each of them.
    var recorders: [Recorder] = []
    /// How to close the instances built with a close action, in the order they were built.
    var closeActions: [CloseAction] = []
    /// The shutdown under way or done, which every `shutdown()` call awaits.
    var shutdown: Task<[ShutdownError.Failure], Never>?
    /// The shutdown waiting for the last call in the gate to leave.
    var drained: CheckedContinuation<Void, Never>?
}
