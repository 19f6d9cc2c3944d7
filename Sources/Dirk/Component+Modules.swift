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
    /// A default module is created in a build-once cell, as a provider's instance is built: the
    /// first thread to ask creates it with no lock held, a thread that asks meanwhile waits for
    /// it, and a module whose initializer needs itself stops the program with the path.
    ///
    /// Not generic, so that it is compiled once, rather than run as unspecialized generic code for
    /// every module type.
    @usableFromInline func uncachedModule(
        of type: AnyModule.Type, file: StaticString, line: UInt
    ) -> AnyModule {
        checkNotDeinitializing(type, file: file, line: line)
        let key = ObjectIdentifier(type)
        let found: AnyObject = core.withLock { state in
            if let published = modules.value(for: TypeKey(type)) { return published }
            if let registered = state.registeredModules.removeValue(forKey: key) {
                modules.insert(registered, asInstanceOf: type)
                return registered
            }
            if let creation = state.moduleCreations.first(where: { $0.type == key }) { return creation.cell }
            let cell = OnceCell.make()
            state.moduleCreations.append(ModuleCreation(type: key, cell: cell))
            return cell
        }
        guard let cell = found as? OnceCell else { return unsafeDowncast(found, to: AnyModule.self) }
        let frame = Frame(
            .moduleCreation, owner: identity, component: identity,
            site: ProviderSite(file: file, line: line, column: 0, function: "init(_:)"), type: type,
            subject: type,
            componentType: Swift.type(of: self))
        let module = ResolutionContext.withCurrent { context in
            cell.resolve(in: context, frame: frame, holdsBuild: false) {
                // A main-actor module's `makeDefault` checks the thread.
                let module = type.makeDefault(for: self, file: file, line: line)
                // In the table before the cell completes: a caller that finds neither is woken.
                core.withLock { state in
                    modules.insert(module, asInstanceOf: type)
                    state.moduleCreations.removeAll { $0.type == key }
                }
                return module
            }
        }
        return unsafeDowncast(module, to: AnyModule.self)
    }
}

extension Component {
    /// How many callers wait for the module of `type` that this component's first use of it is
    /// creating: none when none does, or when the module is not being created. A test hook.
    package func callersWaiting(forModule type: AnyModule.Type) -> Int {
        let key = ObjectIdentifier(type)
        let cell = core.withLock { state in state.moduleCreations.first { $0.type == key }?.cell }
        return cell?.status.waiters ?? 0
    }
}

/// A default module being created: its type, and the cell that creates it.
struct ModuleCreation {
    let type: ObjectIdentifier
    let cell: OnceCell
}
