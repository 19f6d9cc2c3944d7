/// What lets Dirk's methods name the type of the component or module they are called on, so that
/// the compiler checks what their closures receive: machinery, underscored so that documentation
/// and code completion leave it out.
///
/// ``Component`` and ``AnyModule``, so every module, conform; you never conform to it or name it.
/// Its extensions declare ``Component/module(file:line:)-1dr3a``, the `.module { }` forms,
/// `overriding`, `contribute`, `withShutdown`, the handles and ``AnyModule/fresh(_:)`` with `Self`:
/// the type of the component that declares the accessor or registers the module, or of the module
/// called. In an extension of the class, `Self` cannot name a subclass in a generic constraint:
///
/// ```swift
/// final class SessionComponent: Component, @unchecked Sendable {
///     var app: AppComponent { parent() }
///     var cart: CartModule { module() }  // a `Module<SessionComponent>`
/// }
/// ```
///
/// Declared in `SessionComponent`, an accessor of a `Module<AppComponent>` does not compile:
/// `SessionComponent` reaches that module through its parent, as `app.data`.
public protocol _ModuleOwner: AnyObject {}

/// The old name of the protocol behind `module()`, which no code needs to name.
@_documentation(visibility: internal)
@available(*, deprecated, message: "no code needs to name it: `module()` is a method of Component")
public typealias ModuleOwner = _ModuleOwner

extension _ModuleOwner where Self: Component {
    /// The component's module of type `M`: the one registered with ``Component/module(_:file:line:)``,
    /// or else one created with `M(self)` on first use and kept for the component's lifetime.
    ///
    /// Declare one accessor per module:
    ///
    /// ```swift
    /// var data: DataModule { module() }
    /// ```
    ///
    /// The compiler checks that `M` is a module of the component whose type declares the accessor,
    /// a `Module<Self>`: an accessor of another component's module does not compile. An accessor
    /// declared by a component class serves its subclasses too. A subclass that declares an
    /// accessor of its base component's module asks through the base type, which the module
    /// belongs to:
    ///
    /// ```swift
    /// final class FakeAppComponent: AppComponent, @unchecked Sendable {
    ///     var offline: OfflineNetworkModule { (self as AppComponent).module() }
    /// }
    /// ```
    ///
    /// When many threads ask for a module first at once, each may create one: they all get the first
    /// one published. The component keeps the others until it goes, and ``Component/shutdown(file:line:)``
    /// closes what their initializers built with a close action, as it closes everything the
    /// component built. A module whose initializer needs itself, through other modules, stops the
    /// program with the path.
    ///
    /// **Complexity:** a lookup in the component's directory, without a lock, once the module exists.
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The module; the same instance on every call.
    @inlinable @inline(__always)
    public func module<M: Module<Self>>(file: StaticString = #fileID, line: UInt = #line) -> M {
        anyModule(M.self, file: file, line: line)
    }

    /// The component's main-actor module of type `M`, as ``module(file:line:)`` finds or creates a
    /// module, on the main actor: declare its accessor `@MainActor`, or the compiler refuses it.
    ///
    /// ```swift
    /// @MainActor var screens: ScreenModule { module() }
    /// ```
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The module; the same instance on every call.
    @MainActor @inlinable @inline(__always)
    public func module<M: MainActorModule<Self>>(file: StaticString = #fileID, line: UInt = #line) -> M {
        anyModule(M.self, file: file, line: line)
    }

    /// `module()` for any module type, which the public forms have checked.
    @inlinable @inline(__always)
    func anyModule<M: AnyModule>(_ type: M.Type, file: StaticString, line: UInt) -> M {
        if let module = liveMember(.module, M.self) { return Erasure.module(module, as: M.self) }
        return Erasure.module(uncachedModule(of: M.self, file: file, line: line), as: M.self)
    }

    /// Registers the module that `make` creates for this component, in place of its own type and
    /// of every module class it inherits from.
    ///
    /// Needed only to configure or substitute a module: ``Component/module(file:line:)-1dr3a`` creates
    /// modules on first use.
    ///
    /// ```swift
    /// let app = AppComponent().module { StubNetworkModule($0) }  // serves `network` too
    /// ```
    ///
    /// The compiler checks that the module is a module of this component, a `Module<Self>`. To
    /// register a module of a base component on a component of a subclass, register it through
    /// the base type: `(fakeApp as AppComponent).module { StubNetworkModule($0) }`.
    ///
    /// Register modules before the component's first resolution; registering one whose type is
    /// already in use stops the program. A later registration replaces an earlier one, which is
    /// released.
    ///
    /// - Parameters:
    ///   - make: Creates the module from this component.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func module(
        _ make: (Self) -> ModuleBase<Self>, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { register(make(self), file: file, line: line) }

    /// Registers the module that `make` creates, usually a subclass or a fake, in place of `type`.
    ///
    /// ```swift
    /// let app = AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }
    /// ```
    ///
    /// The compiler checks that `type` is a module of this component, as for
    /// ``Component/module(_:file:line:)``.
    ///
    /// - Parameters:
    ///   - type: The module type that accessors ask for.
    ///   - make: Creates the substitute from this component.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func module<M: ModuleBase<Self>>(
        _ type: M.Type, _ make: (Self) -> M, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { register(make(self), as: [type], file: file, line: line) }
}

extension Component {
    /// Registers `module`, which `.module { }` made, in place of each of `types`, by default each
    /// class it inherits from below the root module class, and returns this component, for chaining.
    @discardableResult func register(
        _ module: AnyModule, as types: [AnyModule.Type]? = nil, file: StaticString, line: UInt
    ) -> Self {
        let moduleType = Swift.type(of: module)
        let ownType = Swift.type(of: self)
        // By default, the module's class and the module classes it inherits from, most derived first.
        let root: Any.Type = moduleType.rootModuleType
        let types = types ?? classes(of: module).prefix { $0 != root }.map { $0 as! AnyModule.Type }
        // The closure that made the module ran on this thread.
        if moduleType.isMainActorModule && !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleRegisteredOffMainThread(
                moduleType, component: ownType, at: (file, line))
        }
        // The compiler checked that the module is one of this component's type, but not that it was
        // made for this very component.
        guard module.storage === storage else {
            Diagnostics.foreignModule(moduleType, component: ownType, at: (file, line))
        }
        for type in types { checkType(module, is: type, kind: "module", file: file, line: line) }
        let replaced = storage.withLock { state in
            storage.setFlags(ComponentStorage.hasRegisteredModules)
            for type in types where storage.withDirectory({ $0.member(.module, type) }) != nil {
                Diagnostics.lateModule(type, registered: moduleType, component: ownType, at: (file, line))
            }
            return types.compactMap { type in
                state.withExtras { $0.registeredModules.updateValue(module, forKey: ObjectIdentifier(type)) }
            }
        }
        // Released after the lock: a module's deinitializer may run user code.
        withExtendedLifetime(replaced) {}
        return self
    }

    /// `module()` when the directory holds no module of `type` yet, or when the component's release
    /// has begun (which stops the program): publishes the registered module of `type`, or creates the
    /// default one, in the directory, and returns the module published: an instance of `type`.
    ///
    /// The module is created with no lock held, in a step of the thread's resolution, so that a
    /// module whose initializer needs itself stops the program with the path. Threads that create
    /// the same module at once each create one; the first published is everyone's, and the component
    /// keeps the others until it goes, since what their initializers started may still use them: a
    /// build held until its resolution ends, instances whose close actions shutdown runs. Not
    /// generic, so that it is compiled once. Package-visible, as a test hook for the check that
    /// guards module creation: a test passes a module type that the compiler has not checked, which
    /// may belong to another component.
    @usableFromInline package func uncachedModule(
        of type: AnyModule.Type, file: StaticString = #fileID, line: UInt = #line
    ) -> AnyModule {
        checkNotDeinitializing(type, file: file, line: line)
        // A registration that this thread has not seen yet is found when the module is published.
        if storage.flags & ComponentStorage.hasRegisteredModules != 0,
            let module = storage.withLock({ storage.publishedModule(type, in: &$0) })
        {
            return module
        }
        let step = Step(
            .moduleCreation, owner: identity, component: identity,
            site: ProviderSite(file: file, line: line, column: 0, function: "init(_:)"), type: type,
            subject: type, componentType: Swift.type(of: self))
        let made = ResolutionContext.withCurrent { context in
            if context.enclosing(step) != nil {
                Diagnostics.cycle(
                    path: context.steps(from: step) + [step], at: step, keys: ResolutionContext.stepKeys)
            }
            context.enter(step)
            // A main-actor module's `makeDefault` checks the thread.
            let made = type.makeDefault(for: self, file: file, line: line)
            if let failure = context.leave() { Diagnostics.typedError(failure, as: Never.self, at: step) }
            return made
        }
        return storage.withLock { state in
            guard let published = storage.publishedModule(type, in: &state) else {
                storage.withDirectory { $0.add(made, .module, type, retired: &state.retired) }
                return made
            }
            state.withExtras { $0.racedModules.append(made) }
            return published
        }
    }

    /// Stops the program unless `given`, which the component was given to register as `type` (a
    /// `kind`, "module" or "parent"), is an instance of it or of one of its subclasses, which a cast
    /// cannot tell when the type is a metatype held in a variable
    /// (`let type: AppComponent.Type = FakeApp.self`).
    func checkType(_ given: AnyObject, is type: Any.Type, kind: String, file: StaticString, line: UInt) {
        let givenType: Any.Type = Swift.type(of: given)
        // The exact type first: a comparison, where a mirror walks the class hierarchy.
        guard givenType != type && !classes(of: given).contains(where: { $0 == type }) else { return }
        Diagnostics.registeredAsAnotherType(
            givenType, as: type, kind: kind, component: Swift.type(of: self), at: (file, line))
    }
}

extension ComponentStorage {
    /// The module that the directory holds under `type`, or the one registered for it, which is
    /// published now.
    func publishedModule(_ type: AnyModule.Type, in state: inout ComponentState) -> AnyModule? {
        if let published = withDirectory({ $0.member(.module, type) }) {
            return Erasure.module(published.object, as: AnyModule.self)
        }
        // Read before it is written: a write through `extras` costs a copy's checks even when empty.
        guard state.extras?.registeredModules.isEmpty == false,
            let registered = state.extras!.registeredModules.removeValue(forKey: ObjectIdentifier(type))
        else { return nil }
        withDirectory { $0.add(registered, .module, type, retired: &state.retired) }
        return registered
    }
}

/// The class of `object` and the classes it inherits from, most derived first.
func classes(of object: AnyObject) -> some Sequence<Any.Type> {
    sequence(first: Mirror(reflecting: object), next: \.superclassMirror).lazy.map(\.subjectType)
}
