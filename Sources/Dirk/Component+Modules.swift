extension Component {
    /// The component's module of type `M`: the one registered with `module(_:)`, or else one
    /// created with `M(self)` on first use and kept for the component's lifetime.
    ///
    /// Declare one accessor per module:
    ///
    /// ```swift
    /// var data: DataModule { module() }
    /// ```
    ///
    /// **Complexity:** one lock-free table lookup once the module exists.
    ///
    /// - Returns: The module; the same instance on every call.
    public func module<M: AnyModule>(file: StaticString = #fileID, line: UInt = #line) -> M {
        if let module = modulesByType.value(for: TypeKey(M.self)) {
            return unsafeDowncast(module, to: M.self)
        }
        return unsafeDowncast(
            firstUse(of: M.self, site: CallSite(file: file, line: line, column: 0, function: "init")),
            to: M.self)
    }

    /// Registers the module that `make` creates for this component, under the module's own type.
    ///
    /// Needed only to configure a module: `module()` creates modules on first use.
    ///
    /// ```swift
    /// let app = AppComponent().module { DataModule($0) }
    /// ```
    ///
    /// Register modules before the component's first resolution; registering one that is already
    /// in use stops the program. A later registration of the same type replaces an earlier one.
    ///
    /// - Parameter make: Creates the module from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public func module<M: AnyModule>(_ make: (Self) -> M) -> Self {
        register(make(self), as: M.self)
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
    ///   - make: Creates the substitute from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public func module<M: AnyModule>(_ type: M.Type, _ make: (Self) -> M) -> Self {
        register(make(self), as: type)
        return self
    }
}

extension Component {
    private func register(_ module: AnyModule, as type: AnyModule.Type) {
        guard module.belongs(to: self) else {
            Diagnostics.foreignModule(Swift.type(of: module), component: Swift.type(of: self))
        }
        let key = ObjectIdentifier(type)
        withStateLock { state in
            if modulesByType.value(for: TypeKey(type)) != nil || state.moduleSlots[key] != nil {
                Diagnostics.lateModule(type, component: Swift.type(of: self))
            }
            state.registeredModules[key] = module
        }
    }

    /// Publishes the registered module of `type`, or creates the default one, exactly once.
    private func firstUse(of type: AnyModule.Type, site: CallSite) -> AnyModule {
        let key = ObjectIdentifier(type)
        let step = withStateLock { state -> (module: AnyModule?, slot: ProviderSlot?) in
            if let module = modulesByType.value(for: TypeKey(type)) { return (module, nil) }
            if let module = state.registeredModules.removeValue(forKey: key) {
                modulesByType.insert(module, for: TypeKey(type))
                return (module, nil)
            }
            if let slot = state.moduleSlots[key] { return (nil, slot) }
            let slot = ProviderSlot(
                name: "\(type).init(_:)", site: site, component: self,
                caching: .one(OnceCell(retention: .strong)))
            state.moduleSlots[key] = slot
            return (nil, slot)
        }
        if let module = step.module { return module }
        guard let slot = step.slot, case .one(let cell) = slot.caching else {
            preconditionFailure("Dirk: module slot")
        }
        let module = cell.resolve(
            slot: slot, in: self, make: { type.makeDefault(for: self) },
            configures: false, configure: { _ in })
        return withStateLock { state in
            if let published = modulesByType.value(for: TypeKey(type)) { return published }
            let module = unsafeDowncast(module, to: AnyModule.self)
            modulesByType.insert(module, for: TypeKey(type))
            state.moduleSlots[key] = nil
            return module
        }
    }
}
