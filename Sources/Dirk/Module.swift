import CDirk

/// The type-erased base of every module; subclass ``Module`` instead.
///
/// ``Component/module(file:line:)`` uses it to find and create modules of any component type.
open class AnyModule: @unchecked Sendable {
    /// The word of `publishedSlots`: zero until the module's provider slots are made, then one
    /// reference to them. Read and written only through `publishedSlots` after the initializer; it
    /// must stay the class's first stored property (see `FirstStoredWord`).
    private var slotsStorage: UInt = 0
    // Immutable.
    /// The component, whose memory the reference keeps allocated, but not the component alive.
    @usableFromInline let componentReference: UnownedReference<Component>
    /// The component's type, for messages.
    let componentType: Component.Type
    /// The component's lock-free words, of which a module without slots reads the count of
    /// observers; valid for as long as `componentReference` keeps the component's memory
    /// allocated. Its lock and state are taken only through a strong reference to the component.
    @usableFromInline let componentCore: ComponentCore

    /// A module of `component`. It makes its slots on the first call that needs them, so that a
    /// module whose providers keep nothing (transients) costs no object and no lock of its
    /// component's.
    init(for component: Component, as componentType: Component.Type) {
        componentReference = UnownedReference(component)
        self.componentType = componentType
        componentCore = component.core
    }

    deinit {
        // The component's release empties every cache it keeps, so a module that goes with its
        // component leaves it nothing to do. One that goes before takes its slots out of the
        // component's list.
        if let slots = madeSlots, let component = componentReference.strongIfAlive() {
            component.core.withLock { state in state.caches.removeAll { $0 === slots } }
        }
        publishedSlots.release()
    }

    // MARK: Provider slots

    /// The module's slots, once made.
    @inlinable var publishedSlots: PublishedReference<ProviderSlots> {
        PublishedReference(word: FirstStoredWord.of(self))
    }

    /// The module's slots, if a provider call has made them.
    @inlinable var madeSlots: ProviderSlots? { publishedSlots.object }

    /// The module's provider slots, made on the first call that needs them and kept for the
    /// module's lifetime; the component holds them too, so that `reset()` and the component's
    /// release reach every cache without holding the module.
    @inlinable var slots: ProviderSlots {
        if let slots = madeSlots { return slots }
        makeSlots()
        return madeSlots!
    }

    /// What `body` returns for the module's provider slots, made first if need be, lent without a
    /// reference count of their own: the module, which the caller holds, keeps them for as long
    /// as it lives.
    @inline(__always) func withSlots<Result>(_ body: (ProviderSlots) throws -> Result) rethrows -> Result {
        if !publishedSlots.isPublished { makeSlots() }
        return try publishedSlots.withPublishedObject(body)
    }

    /// Fresh requests and observers of the module's providers: while it is zero, a provider takes
    /// its shortest path. A module without slots has no fresh request (`fresh` makes the slots),
    /// and its observers are its component's.
    @inlinable var attention: UInt {
        publishedSlots.withObject { $0.attention } ?? componentCore.attention
    }

    /// Whether any provider of the module is overridden; a module without slots has no override.
    @inlinable var hasOverrides: Bool {
        publishedSlots.withObject { $0.hasOverrides } ?? false
    }

    /// Makes the module's slots, unless another thread does first, and registers them with the
    /// component, which keeps track of every module's slots so that releasing or resetting the
    /// component reaches them. Slots made after the component's release are the module's alone.
    @usableFromInline @inline(never) func makeSlots() {
        makeSlots(beforePublishing: { _ in })
    }

    /// `makeSlots()`, which runs `beforePublishing` with the slots it made before it publishes
    /// them: a test hook, through which a test holds this thread until another has published its
    /// slots, so that this one loses the race.
    @inline(__always) package func makeSlots(beforePublishing: (AnyObject) -> Void) {
        let made = ProviderSlots.make(moduleType: Swift.type(of: self), componentType: componentType)
        let component = componentReference.strongIfAlive()
        // Registered before they are published, so that a `reset()` or a release of the component
        // that can find them reaches every instance they cache.
        component?.core.withLock { state in
            state.caches.append(made)
            let observers = component!.core.observers
            if observers > 0 { made.addObservers(Int(observers)) }
            if component!.core.isShutDown { made.addFreshRequests(1) }
        }
        beforePublishing(made)
        if !publishedSlots.publish(made) {
            component?.core.withLock { state in state.caches.removeAll { $0 === made } }
        }
    }

    /// Whether the module has made its provider slots. A test hook.
    package var hasSlots: Bool { madeSlots != nil }

    /// Whether the word that `FirstStoredWord` finds is the module's first stored property, and holds
    /// what the property holds. A test hook: it checks the layout that `publishedSlots` assumes.
    package var slotsWordIsItsProperty: Bool {
        let word = FirstStoredWord.of(self)
        let isThere = withUnsafeMutablePointer(to: &slotsStorage) { $0 == word }
        return isThere && slotsStorage == dirk_load_acquire(word)
    }

    /// Creates the module for `component`; ``Module`` overrides it.
    class func makeDefault(for component: Component, file: StaticString, line: UInt) -> AnyModule {
        Diagnostics.notAModule(self, component: type(of: component), file: file, line: line)
    }

    /// Whether the module was created for `component`; ``Module`` overrides it.
    func belongs(to component: Component) -> Bool { false }

    /// Whether the module's providers belong to the main actor (``MainActorModule``).
    class var isMainActorModule: Bool { false }

    /// `Module<C>` itself, where the chain of a module's own classes ends.
    class var rootModuleType: AnyModule.Type { AnyModule.self }

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
/// A module with no stored properties needs no initializer: ``Component/module(file:line:)``
/// creates it with ``init(_:)`` on first use. Register a module explicitly only to substitute or
/// configure it: `AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }`.
///
/// **Identity.** Every provider has its own cache slot in its module, identified by the
/// provider method's name, the file, line and column of its strategy call, and its declared return
/// type: two methods that return the same type never share an instance, and a subclass that
/// overrides a provider gets its own. See <doc:ProviderStrategies#Provider-identity>.
///
/// **Lifetime.** The component owns the module; the module does not keep the component alive.
/// A provider that needs its component after the component was released stops the program with a
/// message that says so.
///
/// **Thread safety.** Providers may be called from any thread at once. See <doc:ConcurrencyGuarantees>.
open class Module<C: Component>: AnyModule, @unchecked Sendable {
    /// Creates the module for `component`.
    ///
    /// The component keeps track of every module made for it, so that releasing or resetting the
    /// component reaches it, but ``Component/module(file:line:)`` returns it only if you register
    /// it with ``Component/module(file:line:_:)``; otherwise it creates its own on first use.
    ///
    /// - Parameter component: The component whose providers this module's factories receive.
    public required init(_ component: C) {
        // The parameter stays owned. Declared `borrowing`, it would save a retain and a release
        // per module, but Swift 6.3 then calls a subclass's override that declares it owned (the
        // usual `required init(_ component: AppComponent)`) without the retain that the override
        // releases: the component is over-released, in debug and release builds alike.
        super.init(for: component, as: C.self)
    }

    /// The component this module belongs to.
    ///
    /// Strategies pass it to factories, so most modules never call this. Calling it after the
    /// component was released stops the program with a message that says so.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    /// - Returns: The component.
    public func component(file: StaticString = #fileID, line: UInt = #line) -> C {
        guard let component = componentReference.strongIfAlive() else {
            Diagnostics.componentReleased(
                provider: "\(type(of: self)).component()", component: C.self,
                site: ProviderSite(file: file, line: line, column: 0, function: "component()"))
        }
        return Erasure.component(component, as: C.self)
    }

    override class func makeDefault(for component: Component, file: StaticString, line: UInt) -> AnyModule {
        // The exact type first: a comparison, where a cast searches the class hierarchy.
        if type(of: component) == C.self { return self.init(Erasure.component(component, as: C.self)) }
        guard let owner = component as? C else {
            Diagnostics.wrongComponent(
                module: self, expected: C.self, actual: type(of: component), file: file, line: line)
        }
        return self.init(owner)
    }

    override class var rootModuleType: AnyModule.Type { Module<C>.self }

    override func belongs(to component: Component) -> Bool {
        componentReference.identity == UInt(bitPattern: ObjectIdentifier(component))
    }
}
