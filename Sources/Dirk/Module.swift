/// The type-erased base of every module; subclass `Module` instead.
///
/// `Component.module()` uses it to find and create modules of any component type.
open class AnyModule: @unchecked Sendable {
    // `slots` synchronizes itself (see `LookupTable`); it is written only while holding the lock
    // of the component the module belongs to.
    let slots = LookupTable<ProviderKey, ProviderSlot>()

    init() {}

    /// Creates the module for `component`; `Module` overrides it.
    class func makeDefault(for component: Component) -> AnyModule {
        preconditionFailure("Dirk: \(self) must subclass Module<Component>")
    }

    /// Whether the module was created for `component`.
    func belongs(to component: Component) -> Bool {
        preconditionFailure("Dirk: \(type(of: self)) must subclass Module<Component>")
    }

    /// Drops every instance the module's providers cached, returning them for the caller to
    /// release outside the lock. Call it while holding the component's lock.
    func resetSlots() -> [AnyObject] {
        slots.allValues().flatMap { $0.reset() }
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
/// **Lifetime.** A module refers to its component weakly; the component owns the module. Calling
/// a provider after the component was released stops the program with a message that says so.
///
/// **Thread safety.** Providers may be called from any thread at once. See `Docs/Concurrency.md`.
open class Module<C: Component>: AnyModule, @unchecked Sendable {
    // Weak, so that the component and its modules form no retain cycle. Written once in `init`.
    private weak var owner: C?

    /// Creates the module for `component`. The component does not register it; do that with
    /// `Component.module(_:)`, or let `Component.module()` create the module on first use.
    ///
    /// - Parameter component: The component whose providers this module's factories receive.
    public required init(_ component: C) {
        owner = component
        super.init()
    }

    /// The component this module belongs to.
    ///
    /// Strategies pass it to factories, so most modules never read it. Reading it after the
    /// component was released stops the program with a message that says so.
    public var component: C {
        guard let owner else {
            Diagnostics.componentReleased(
                provider: "\(type(of: self)).component", component: C.self,
                site: CallSite(file: #fileID, line: #line, column: #column, function: #function))
        }
        return owner
    }

    override class func makeDefault(for component: Component) -> AnyModule {
        guard let owner = component as? C else {
            Diagnostics.wrongComponent(module: self, expected: C.self, actual: type(of: component))
        }
        return self.init(owner)
    }

    override func belongs(to component: Component) -> Bool {
        owner === component
    }

    /// The live component for a call of `slot`'s provider; stops the program if it was released.
    @inline(__always)
    func liveComponent(for slot: ProviderSlot) -> C {
        guard let owner else {
            Diagnostics.componentReleased(provider: slot.name, component: C.self, site: slot.site)
        }
        return owner
    }

    /// The slot of the provider at `site` returning `type`, made on the provider's first call.
    @inline(__always)
    func slot(
        at site: CallSite, returning type: Any.Type, caching: @autoclosure () -> ProviderSlot.Caching
    ) -> ProviderSlot {
        let key = ProviderKey(site: site, type: type)
        if let slot = slots.value(for: key) { return slot }
        return makeSlot(key, caching: caching())
    }

    private func makeSlot(_ key: ProviderKey, caching: ProviderSlot.Caching) -> ProviderSlot {
        let name = "\(type(of: self)).\(key.site.function)"
        guard let component = owner else {
            Diagnostics.componentReleased(provider: name, component: C.self, site: key.site)
        }
        return component.withStateLock { _ in
            if let slot = slots.value(for: key) { return slot }
            let slot = ProviderSlot(
                name: name, site: key.site, component: component, caching: caching)
            slots.insert(slot, for: key)
            return slot
        }
    }
}
