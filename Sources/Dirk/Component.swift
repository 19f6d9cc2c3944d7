/// A scope of your application that owns modules and the instances they cache.
///
/// Subclass `Component` for each scope (the application, a signed-in session, a feature, a
/// screen) and declare typed accessors for its modules and parents:
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
/// There is no global container: whoever owns the scope owns the component.
///
/// **Thread safety.** Every member may be called from any thread at once. Swift 6 asks each
/// subclass to restate `@unchecked Sendable`; that is safe as long as the subclass adds no
/// mutable stored state of its own (accessors are computed properties). See `Docs/Concurrency.md`.
open class Component: @unchecked Sendable {
    // `modulesByType`, `parents` and `ancestorsByType` are read without a lock (see `LookupTable`
    // and `ParentList`); they are written, and every `OnceCell` of this component's modules is
    // changed, only while holding `state`'s lock.
    let state = Locked.make(ComponentState())
    /// The published modules, by type; holds only keys of types.
    @usableFromInline
    let modulesByType = LookupTable()
    /// The parents registered with `parent(_:)`.
    @usableFromInline
    let parents = ParentList()
    /// Ancestors that `parent()` found by searching, by the type asked for; holds only keys of
    /// types.
    @usableFromInline
    let ancestorsByType = LookupTable()

    /// Creates a component with no modules and no parents; add them with `module(_:)` and
    /// `parent(_:)`, or let `module()` create modules on first use.
    public init() {}

    deinit {
        // Modules can outlive the component when someone else holds one; they must stop serving
        // the instances of a released scope. Released after the lock: deinitializers run user code.
        let dropped = withStateLock { $0.dropCachedInstances(componentReleased: true) }
        _ = dropped
    }

    /// Keeps `module`, created for this component, so that `reset()` and the component's release
    /// reach it even when it was never registered.
    func attach(_ module: AnyModule) {
        withStateLock { $0.attach(module) }
    }

    /// Runs `body` while holding the component's lock. `body` must not call user code.
    @inline(__always)
    func withStateLock<Result>(_ body: (inout ComponentState) throws -> Result) rethrows -> Result {
        try state.withLock(body)
    }
}

/// What a component's lock guards besides the cells of its modules.
struct ComponentState {
    /// The most recently created module for the component, registered or not; each module links
    /// to the one created before it.
    var firstAttached: AnyModule?
    /// The guard of lock-free readers of cached instances, made when the first needs it.
    var readGuard: ReadGuard?
    /// Modules registered with `.module { }` and not used yet; the first `module()` publishes
    /// them in `modulesByType`.
    var registeredModules: [ObjectIdentifier: AnyModule] = .init()
    /// The default modules being created, by the threads creating them.
    var moduleCreations = ModuleCreations()
    /// What the component records of its resolutions, while `recordingDependencies()` is on.
    var graph: DependencyRecord?
    /// How many traces under way observe this component.
    var tracers = 0
    /// The contributions this component made, by element type.
    var contributions: [ObjectIdentifier: [Registration]] = .init()
    /// Whether `parent()` has searched beyond the registered types, after which registering
    /// another parent could change earlier answers.
    var hasSearchedParents = false

    /// Empties every cell of every attached module and returns what they held, once no lock-free
    /// reader can still be reading it; when the component is being released, also tells each
    /// module so. Call it while holding the component's lock.
    func dropCachedInstances(componentReleased: Bool) -> [Any] {
        var dropped: [Any] = []
        forEachModule { module in
            if componentReleased { module.isComponentAlive.store(false, ordering: .relaxed) }
            module.resetSlots(into: &dropped)
        }
        if !dropped.isEmpty { readGuard?.waitUntilUnread(dropped) }
        return dropped
    }

    /// Attaches `module` to the component, unless it is attached already. Call it while holding the
    /// component's lock.
    mutating func attach(_ module: AnyModule) {
        guard !module.isAttached else { return }
        module.isAttached = true
        module.nextAttached = firstAttached.take()
        firstAttached = module
        let observers = tracers + (graph == nil ? 0 : 1)
        if observers > 0 { module.addObservers(observers) }
    }

    /// Calls `body` with every module attached to the component, newest first, touching no
    /// reference count: the component's lock, held by the caller, keeps the list as it is.
    func forEachModule(_ body: (AnyModule) -> Void) {
        var next = firstAttached.map { Unmanaged.passUnretained($0) }
        while let current = next {
            next = current._withUnsafeGuaranteedRef { module in
                body(module)
                return module.nextAttached.map { Unmanaged.passUnretained($0) }
            }
        }
    }

    /// The read guard, made on first use.
    mutating func readers() -> ReadGuard {
        if let readGuard { return readGuard }
        let made = ReadGuard()
        readGuard = made
        return made
    }
}
