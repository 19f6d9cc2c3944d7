import Synchronization

/// The type-erased base of every module; subclass `Module` instead.
///
/// `Component.module()` uses it to find and create modules of any component type.
open class AnyModule: @unchecked Sendable {
    // `slots` and `isComponentAlive` synchronize themselves; `slots` is written only while
    // holding the lock of the component the module belongs to.
    @usableFromInline
    let slots = LookupTable()
    @usableFromInline
    let isComponentAlive = Atomic(true)
    /// How many threads are inside `fresh(_:)` on this module; while none is, cached providers skip
    /// looking for a fresh request.
    @usableFromInline
    let freshRequests = Atomic(0)
    /// How many observers (traces under way, a component that records) want to hear of this
    /// module's provider calls; while none does, providers skip observing.
    @usableFromInline
    let observers = Atomic(0)
    /// `freshRequests` plus `observers`: while it is zero, a cached provider takes its shortest path.
    @usableFromInline
    let attention = Atomic(0)

    /// Adds `count` to the fresh requests under way, which may be negative.
    func addFreshRequests(_ count: Int) {
        freshRequests.wrappingAdd(count, ordering: .relaxed)
        attention.wrappingAdd(count, ordering: .relaxed)
    }

    /// Adds `count` to the observers, which may be negative.
    func addObservers(_ count: Int) {
        observers.wrappingAdd(count, ordering: .relaxed)
        attention.wrappingAdd(count, ordering: .relaxed)
    }
    /// The next module attached to the same component; guarded by the component's lock.
    var nextAttached: AnyModule?
    /// Whether the module is attached to its component; guarded by the component's lock.
    var isAttached = false

    init() {}

    /// Creates the module for `component`, asked for at `site`; `Module` overrides it.
    class func makeDefault(for component: Component, at site: CallSite) -> AnyModule {
        preconditionFailure("Dirk: \(self) must subclass Module<Component>")
    }

    /// Whether the module was created for `component`.
    func belongs(to component: Component) -> Bool {
        preconditionFailure("Dirk: \(type(of: self)) must subclass Module<Component>")
    }

    /// The component the module belongs to, while it exists; `Module` overrides it.
    var ownerComponent: Component? { nil }

    /// `Module<C>` itself, where the chain of a module's own classes ends.
    class var rootModuleType: AnyModule.Type { AnyModule.self }

    /// The type of component the module belongs to.
    class var componentType: Component.Type { Component.self }

    /// The module's class and the module classes it inherits from, most derived first: the types
    /// a module registered with `.module { }` stands in for.
    var moduleClasses: [AnyModule.Type] {
        let root = ObjectIdentifier(type(of: self).rootModuleType)
        var classes: [AnyModule.Type] = []
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror, let type = current.subjectType as? AnyModule.Type,
            ObjectIdentifier(type) != root
        {
            classes.append(type)
            mirror = current.superclassMirror
        }
        return classes
    }

    /// The object cached by the strong `single` whose key is `key`, retained and read without a
    /// lock: the instance itself, or the `Holder` of a value. Nil when it has none yet, when the
    /// provider never ran, or when someone asked for fresh instances or observes this module.
    ///
    /// Not generic and not inlined, so that a provider stays small, and the optimizer cannot move
    /// the retain out of the reader's protected window. It releases nothing, and says so, so that
    /// a caller's optimizer need not retain the module around it.
    @usableFromInline @inline(never) @_effects(releasenone)
    final func cachedObject(at key: LookupKey) -> AnyObject? {
        guard attention.load(ordering: .relaxed) == 0,
            let slot = slots.value(for: key, as: ProviderSlot.self)
        else { return nil }
        let cell = slot._withUnsafeGuaranteedRef { $0.unretainedCell.unsafelyUnwrapped }
        return cell._withUnsafeGuaranteedRef { $0.cachedObject() }
    }

    /// Drops every instance the module's providers cached, adding them to `dropped` for the
    /// caller to release outside the lock. Call it while holding the component's lock.
    func resetSlots(into dropped: inout [Any]) {
        slots.forEachValue { unsafeDowncast($0, to: ProviderSlot.self).reset(into: &dropped) }
    }
}

/// A group of related providers for the component `C`.
///
/// Subclass it and write one method per dependency. Each method returns its dependency through a
/// strategy, which decides how long an instance lives:
///
/// ```swift
/// class DataModule: Module<AppComponent>, @unchecked Sendable {
///     func store() -> Store { single { Store() } }
///     func session() -> Session {
///         transient { c in Session(store: c.data.store(), api: c.network.api()) }
///     }
/// }
/// ```
///
/// A module with no stored properties needs no initializer: `Component.module()` creates it with
/// `init(_:)` on first use. Register a module explicitly only to substitute or configure it:
/// `AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }`.
///
/// **Identity.** Every provider has its own cache slot, identified by the place its strategy is
/// called and the declared return type: two methods that return the same type never share an
/// instance, and a subclass that overrides a provider gets its own.
///
/// **Lifetime.** The component owns the module; the module does not keep the component alive.
/// Calling a provider after the component was released stops the program with a message that
/// says so.
///
/// **Thread safety.** Providers may be called from any thread at once. See `Docs/Concurrency.md`.
open class Module<C: Component>: AnyModule, @unchecked Sendable {
    // Immutable. Unowned, so the component and its modules form no retain cycle and the
    // component's reference counting stays as fast as any object's (a weak reference would give
    // it a side table). `isComponentAlive` lets Dirk report a released component in its own
    // words; a release that races with a call is caught by the unowned reference itself.
    @usableFromInline
    unowned let owner: C
    /// `owner`, for identity checks and for calls while a resolution holds the component.
    @usableFromInline
    let unretainedOwner: Unmanaged<C>

    /// Creates the module for `component`.
    ///
    /// The component keeps the module, so that releasing or resetting the component reaches it,
    /// but `module()` returns it only if you register it with `Component.module(_:)`; otherwise
    /// `module()` creates its own on first use.
    ///
    /// - Parameter component: The component whose providers this module's factories receive.
    public required init(_ component: C) {
        owner = component
        unretainedOwner = .passUnretained(component)
        super.init()
        let context = ResolutionContext.current.takeUnretainedValue()
        if let pending = context.attachedOnPublish,
            pending.component == unretainedOwner.toOpaque(), pending.type == ObjectIdentifier(Self.self)
        {
            context.attachedOnPublish = nil
        } else {
            component.attach(self)
        }
    }

    /// The component this module belongs to.
    ///
    /// Strategies pass it to factories, so most modules never read it. Reading it after the
    /// component was released stops the program with a message that says so.
    public var component: C {
        liveComponent(
            provider: "\(type(of: self)).component",
            site: CallSite(file: #fileID, line: #line, column: #column, function: #function))
    }

    override class func makeDefault(for component: Component, at site: CallSite) -> AnyModule {
        if type(of: component) == C.self { return self.init(unsafeDowncast(component, to: C.self)) }
        guard let owner = component as? C else {
            Diagnostics.wrongComponent(
                module: self, expected: C.self, actual: type(of: component), site: site)
        }
        return self.init(owner)
    }

    override class var rootModuleType: AnyModule.Type { Module<C>.self }

    override class var componentType: Component.Type { C.self }

    override var ownerComponent: Component? {
        isComponentAlive.load(ordering: .relaxed) ? owner : nil
    }

    /// Tells the observers that the provider at `site`, caching in `cell`, is being resolved.
    /// Call it only when `observers` is not zero.
    @usableFromInline
    func observe(_ site: CallSite, returning type: Any.Type, strategy: String, cell: OnceCell) {
        guard let component = ownerComponent else { return }
        let isNew = component.withStateLock { _ in !cell.hasValue }
        observe(site, returning: type, strategy: strategy, isNew: isNew)
    }

    /// Tells the observers that the provider at `site` is being resolved. Call it only when
    /// `observers` is not zero.
    @usableFromInline
    func observe(_ site: CallSite, returning type: Any.Type, strategy: String, isNew: Bool) {
        guard let component = ownerComponent else { return }
        Observation.resolving(
            Frame(provider: self, at: site, returning: type), strategy: strategy, isNew: isNew,
            in: component, context: ResolutionContext.current.takeUnretainedValue())
    }

    override func belongs(to component: Component) -> Bool {
        isComponentAlive.load(ordering: .relaxed) && owner === component
    }

    /// The component, for the slow paths; stops the program if it was released.
    func liveComponent(provider: @autoclosure () -> String, site: CallSite) -> C {
        guard isComponentAlive.load(ordering: .relaxed) else {
            Diagnostics.componentReleased(provider: provider(), component: C.self, site: site)
        }
        return owner
    }

    /// Runs `body` with the component, which `context` keeps alive until its resolution ends;
    /// stops the program, naming `frame`'s provider, if the component was released.
    ///
    /// The first call into a component during a resolution retains it, through the unowned
    /// reference, which traps safely if another thread released it meanwhile; later calls find it
    /// held and touch no reference count.
    @inlinable @inline(__always)
    func withComponent<Result>(
        in context: ResolutionContext, _ frame: Frame, _ body: (C) throws -> Result
    ) rethrows -> Result {
        if !context.holds(unretainedOwner.toOpaque()) {
            guard isComponentAlive.load(ordering: .relaxed) else { componentReleased(frame) }
            context.hold(Unmanaged<Component>.passRetained(owner))
        }
        return try unretainedOwner._withUnsafeGuaranteedRef(body)
    }

    @usableFromInline
    func componentReleased(_ frame: Frame) -> Never {
        Diagnostics.componentReleased(provider: frame.name, component: C.self, site: frame.site)
    }

    /// The slot of the provider at `site` returning `type`, made on the provider's first call.
    @inlinable @inline(__always)
    func slot(
        at site: CallSite, returning type: Any.Type, caching: ProviderSlot.Caching
    ) -> Unmanaged<ProviderSlot> {
        let key = LookupKey(site: site, type: type)
        if let slot = slots.value(for: key, as: ProviderSlot.self) { return slot }
        return makeSlot(key, at: site, returning: type, caching: caching)
    }

    @usableFromInline
    func makeSlot(
        _ key: LookupKey, at site: CallSite, returning type: Any.Type, caching: ProviderSlot.Caching
    ) -> Unmanaged<ProviderSlot> {
        let component = liveComponent(
            provider: "\(Swift.type(of: self)).\(site.function)", site: site)
        return component.withStateLock { state in
            if let slot = slots.value(for: key, as: ProviderSlot.self) { return slot }
            let readers: ReadGuard?
            switch caching {
            case .one(.strong), .perKey: readers = state.readers()
            case .one(.weak), .none, .async: readers = nil
            }
            let slot = ProviderSlot(
                site: site, module: Swift.type(of: self), component: component, caching: caching,
                returning: type, readers: readers)
            slots.insert(slot, for: key)
            return .passUnretained(slot)
        }
    }
}
