/// The type-erased base of every module; subclass ``Module`` or ``MainActorModule`` instead.
///
/// ``Component/module(file:line:)-1dr3a`` uses it to find and create modules of any component type; it
/// asks only for a module of the accessor's component. It is not `Sendable`, so that a
/// ``MainActorModule``, which is `Sendable` by its isolation, inherits no `@unchecked` conformance
/// that its subclasses would have to restate; ``Module`` declares its own.
open class AnyModule: _ModuleOwner {
    // Immutable.
    /// The component's storage, which holds its caches; the module holds it, not the component.
    @usableFromInline let storage: ComponentStorage
    /// The component's type, for messages.
    @usableFromInline let componentType: Component.Type

    init(for component: Component, as componentType: Component.Type) {
        storage = component.storage
        self.componentType = componentType
    }

    deinit {
        // A module that goes before its component takes its cells and overrides out of the
        // component's table: another module may get its address. The component's release empties
        // the table itself.
        guard storage.flags & ComponentStorage.isReleased == 0 else { return }
        var dropped: [Any] = []
        storage.withLock { state in
            state.table.removeAll(ownedBy: ObjectIdentifier(self), into: &dropped)
            if let overrides = state.extras?.overrides, !overrides.isEmpty {
                dropped.append(overrides)
                state.extras!.overrides = overrides.filter { $0.key.owner != ObjectIdentifier(self) }
            }
        }
        withExtendedLifetime(dropped) {}
    }

    /// The key of the cell of this module's provider whose key is `key`.
    @inlinable final func cellKey(_ key: ProviderKey) -> CellKey {
        CellKey(owner: ObjectIdentifier(self), provider: key)
    }

    /// Creates the module for `component`; ``Module`` overrides it, and `module()` creates nothing
    /// else.
    class func makeDefault(for component: Component, file: StaticString, line: UInt) -> AnyModule {
        fatalError("Dirk: `\(self)` is not a `Module`: subclass `Module`", file: file, line: line)
    }

    /// Whether the module's providers belong to the main actor (``MainActorModule``).
    class var isMainActorModule: Bool { false }

    /// `Module<C>` itself, where the chain of a module's own classes ends.
    class var rootModuleType: AnyModule.Type { AnyModule.self }
}

/// What every module of the component `C` has: its strategies, its handles and its component.
///
/// Subclass ``Module`` or ``MainActorModule``, never this class: it only holds what the two share.
/// A subclass names the strategies it calls (`single`, `transient`, `weak`, `scoped` and
/// `single(key:)`) without naming this class.
open class ModuleBase<C: Component>: AnyModule {
    // The parameter stays owned. Declared `borrowing`, it would save a retain and a release per
    // module, but Swift 6.3 then calls a subclass's override that declares it owned (the usual
    // `required init(_ component: AppComponent)`) without the retain that the override releases:
    // the component is over-released, in debug and release builds alike.
    init(for component: C) { super.init(for: component, as: C.self) }

    /// The component this module belongs to.
    ///
    /// Strategies pass it to factories, so most modules never need it. Reading it after the component
    /// was released stops the program with a message that says so.
    public var component: C {
        if let component = storage.component { return Erasure.component(component, as: C.self) }
        Diagnostics.componentReleased(
            provider: "\(type(of: self)).component", component: C.self,
            site: ProviderSite(file: #fileID, line: #line, column: 0, function: "component"))
    }

    /// The component this module belongs to: ``component``.
    @available(*, deprecated, renamed: "component")
    public func component(file: StaticString = #fileID, line: UInt = #line) -> C { component }

    /// The component as `C`, or stops the program if it is another component's: the check that
    /// guards the unchecked casts to `C` of a module's component against a caller that skips the
    /// accessor's type check (`Component.uncheckedModule`).
    static func owner(_ component: Component, file: StaticString, line: UInt) -> C {
        // The exact type first: a comparison, where a cast searches the class hierarchy.
        if type(of: component) == C.self { return Erasure.component(component, as: C.self) }
        if let owner = component as? C { return owner }
        Diagnostics.moduleOfAnotherComponent(
            self, owner: C.self, component: type(of: component), at: (file, line))
    }
}

/// A group of related providers for the component `C`.
///
/// Subclass it and write one method per dependency. Each method returns its dependency through a
/// strategy, which decides how long an instance lives:
///
/// ```swift
/// final class DataModule: Module<AppComponent> {
///     func store() -> Store { single { Store() } }
///     func session() -> Session {
///         transient { c in Session(store: c.data.store(), api: c.network.api()) }
///     }
/// }
/// ```
///
/// A module with no stored properties needs no initializer: ``Component/module(file:line:)-1dr3a``
/// creates it with ``init(_:)`` on first use. Register a module explicitly only to substitute or
/// configure it: `AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }`.
///
/// **Identity.** Every provider of a module has its own cache in its component, identified by the
/// provider method's name, the file, line and column of its strategy call, and its declared return
/// type: two methods that return the same type never share an instance, and a subclass that
/// overrides a provider gets its own. See <doc:ProviderStrategies#Provider-identity>.
///
/// **Lifetime.** The component owns the module; the module does not keep the component alive.
/// A provider that needs its component after the component was released stops the program with a
/// message that says so.
///
/// **Thread safety.** One module instance serves every caller of its component, on any thread at
/// once, so state belongs in what its providers build, never in a `var` of the module: a module
/// declares providers, and at most `let`s of `Sendable` values it was created with. A module is not
/// `Sendable`, and needs no annotation: pass its component to another task, not the module. In a
/// target whose default isolation is the main actor, declare the module `nonisolated`
/// (<doc:MainActor#Main-actor-by-default>). See <doc:ConcurrencyGuarantees>.
open class Module<C: Component>: ModuleBase<C> {
    /// Creates the module for `component`.
    ///
    /// The component keeps track of every module made for it, so that releasing or resetting the
    /// component reaches it, but ``Component/module(file:line:)-1dr3a`` returns it only if you register
    /// it with ``Component/module(_:file:line:)``; otherwise it creates its own on first use.
    ///
    /// - Parameter component: The component whose providers this module's factories receive.
    public required init(_ component: C) { super.init(for: component) }

    override class func makeDefault(for component: Component, file: StaticString, line: UInt) -> AnyModule {
        self.init(owner(component, file: file, line: line))
    }

    override class var rootModuleType: AnyModule.Type { Module<C>.self }
}
