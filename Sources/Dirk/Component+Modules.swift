extension Component {
    /// The component's module of type `M`: the one registered with ``module(file:line:_:)``, or else one
    /// created with `M(self)` on first use and kept for the component's lifetime.
    ///
    /// Declare one accessor per module:
    ///
    /// ```swift
    /// var data: DataModule { module() }
    /// ```
    ///
    /// When many threads ask for a module first at once, one creates it and the others wait for
    /// that one. A module whose initializer needs itself, through other modules, stops the program
    /// with the path.
    ///
    /// **Complexity:** one lock-free table lookup once the module exists.
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The module; the same instance on every call.
    @inlinable @inline(__always)
    public func module<M: AnyModule>(file: StaticString = #fileID, line: UInt = #line) -> M {
        if !ObjectLifetime.isDeinitializing(self), let module = modules.instance(of: M.self) { return module }
        return Erasure.module(uncachedModule(of: M.self, file: file, line: line), as: M.self)
    }

    /// Registers the module that `make` creates for this component, in place of its own type and
    /// of every module class it inherits from.
    ///
    /// Needed only to configure or substitute a module: ``module(file:line:)`` creates modules on
    /// first use.
    ///
    /// ```swift
    /// let app = AppComponent().module { StubNetworkModule($0) }  // serves `network` too
    /// ```
    ///
    /// Register modules before the component's first resolution; registering one whose type is
    /// already in use stops the program. A later registration replaces an earlier one, which is
    /// released.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - make: Creates the module from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func module<M: AnyModule>(
        file: StaticString = #fileID, line: UInt = #line, _ make: (Self) -> M
    ) -> Self {
        let module = make(self)
        register(module, as: module.moduleClasses, file: file, line: line)
        return self
    }

    /// Registers the module that `make` creates, usually a subclass or a fake, in place of `type`.
    ///
    /// ```swift
    /// let app = AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The module type that accessors ask for.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - make: Creates the substitute from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func module<M: AnyModule>(
        _ type: M.Type, file: StaticString = #fileID, line: UInt = #line, _ make: (Self) -> M
    ) -> Self {
        register(make(self), as: [type], file: file, line: line)
        return self
    }
}

extension Component {
    private func register(_ module: AnyModule, as types: [AnyModule.Type], file: StaticString, line: UInt) {
        // The closure that made the module ran on this thread.
        if Swift.type(of: module).isMainActorModule && !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleRegisteredOffMainThread(
                Swift.type(of: module), component: Swift.type(of: self), file: file, line: line)
        }
        guard module.belongs(to: self) else {
            Diagnostics.foreignModule(
                Swift.type(of: module),
                ofType: ClassHierarchy.isInstance(self, of: module.componentType)
                    ? nil : module.componentType,
                component: Swift.type(of: self), file: file, line: line)
        }
        for type in types where !ClassHierarchy.isInstance(module, of: type) {
            Diagnostics.registeredAsAnotherType(
                Swift.type(of: module), as: type, kind: "module", component: Swift.type(of: self), file: file,
                line: line)
        }
        let replaced = core.withLock { state in
            types.compactMap { type -> AnyModule? in
                let key = ObjectIdentifier(type)
                if modules.value(for: TypeKey(type)) != nil
                    || state.moduleCreations.first(where: { $0.type == key }) != nil
                {
                    Diagnostics.lateModule(
                        type, registered: Swift.type(of: module), component: Swift.type(of: self), file: file,
                        line: line)
                }
                return state.registeredModules.updateValue(module, forKey: key)
            }
        }
        // Released after the lock: a module's deinitializer may run user code.
        withExtendedLifetime(replaced) {}
    }

    /// `module()` when `modules` holds no module of `type` yet, or when the component's release has
    /// begun (which stops the program): publishes the registered module of `type`, or creates the
    /// default one, exactly once, in `modules`, and returns it: an instance of `type`, the module
    /// that `modules` holds under it.
    ///
    /// The first thread to ask creates the module with no lock held, after recording that it does.
    /// A thread that asks meanwhile waits for it in a build-once cell made then, which the creator
    /// completes, so that the wait takes part in the wait graph as any other; a module whose
    /// initializer needs itself stops the program with the path. (The cell is made only for a
    /// waiter: a cell for every module made `child` about a third slower.)
    ///
    /// Not generic, so that it is compiled once, rather than run as unspecialized generic code for
    /// every module type.
    @usableFromInline func uncachedModule(
        of type: AnyModule.Type, file: StaticString, line: UInt
    ) -> AnyModule {
        checkNotDeinitializing(type, file: file, line: line)
        let key = ObjectIdentifier(type)
        let frame = Frame(
            .moduleCreation, owner: identity, component: identity,
            site: ProviderSite(file: file, line: line, column: 0, function: "init(_:)"), type: type,
            subject: type,
            componentType: Swift.type(of: self))
        return ResolutionContext.withCurrent { context in
            enum Next {
                case found(AnyModule)
                case create
                case wait(OnceCell)
                case cycle
            }
            let next: Next = core.withLock { state in
                if let published = modules.value(for: TypeKey(type)) { return .found(published) }
                if !state.registeredModules.isEmpty,
                    let registered = state.registeredModules.removeValue(forKey: key)
                {
                    modules.insert(registered, asInstanceOf: type)
                    return .found(registered)
                }
                guard let creation = state.moduleCreations.first(where: { $0.type == key }) else {
                    state.moduleCreations.append(ModuleCreation(type: key, creator: context))
                    return .create
                }
                if creation.creator === context { return .cycle }
                return .wait(state.cellOfWaiters(for: creation, frame: frame))
            }
            switch next {
            case .found(let module):
                return module
            case .cycle:
                Diagnostics.cycle(
                    path: context.steps(from: frame) + [frame], at: frame, keys: ResolutionContext.stepKeys)
            case .wait(let cell):
                // The creator builds in the cell, which it claimed: this thread only waits.
                let module = cell.resolve(in: context, frame: frame, holdsBuild: false) {
                    preconditionFailure(
                        "Dirk internal error: a module was created by a thread that waited for it")
                }
                return module as! AnyModule
            case .create:
                context.enter(frame)
                // A main-actor module's `makeDefault` checks the thread.
                let module = type.makeDefault(for: self, file: file, line: line)
                let waited = core.withLock { state in
                    modules.insert(module, asInstanceOf: type)
                    defer { state.moduleCreations.removeAll { $0.type == key } }
                    return state.moduleCreations.first { $0.type == key }?.waiters
                }
                waited?.cell.complete(module, generation: waited!.generation)
                if let failure = context.leave() { Diagnostics.resolutionEndFailed(failure, at: frame) }
                return module
            }
        }
    }
}

extension Component {
    /// How many callers wait for the module of `type` that this component's first use of it is
    /// creating: none when none does, or when the module is not being created. A test hook.
    package func callersWaiting(forModule type: AnyModule.Type) -> Int {
        let key = ObjectIdentifier(type)
        let cell = core.withLock { state in state.moduleCreations.first { $0.type == key }?.waiters?.cell }
        return cell?.status.waiters ?? 0
    }
}

/// A default module being created: its type, its creator, and the cell in which callers that ask
/// for it meanwhile wait, made when the first of them does.
struct ModuleCreation {
    let type: ObjectIdentifier
    let creator: BuildAgent
    var waiters: (cell: OnceCell, generation: UInt64)?

    init(type: ObjectIdentifier, creator: BuildAgent) {
        self.type = type
        self.creator = creator
    }
}

extension ComponentState {
    /// The cell in which callers wait for `creation`, claimed for its creator in the step `frame`,
    /// made now if it is the first.
    ///
    /// Every step that creates one module of one component is the same step, whichever accessor
    /// asked, so `frame` stands for the creator's step too.
    mutating func cellOfWaiters(for creation: ModuleCreation, frame: Frame) -> OnceCell {
        if let waiters = creation.waiters { return waiters.cell }
        let cell = OnceCell.make()
        guard case .build(let generation) = cell.withMachine({ $0.claim(by: creation.creator, frame: frame) })
        else {
            preconditionFailure("Dirk internal error: a new cell was not empty")
        }
        moduleCreations.removeAll { $0.type == creation.type }
        var waited = creation
        waited.waiters = (cell, generation)
        moduleCreations.append(waited)
        return cell
    }
}
