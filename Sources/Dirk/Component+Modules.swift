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
    @inlinable public func module<M: AnyModule>(file: StaticString = #fileID, line: UInt = #line) -> M {
        checkNotDeinitializing("\(M.self)", file: file, line: line)
        if let module = modules.instance(of: M.self) { return module }
        return firstUse(of: M.self, file: file, line: line)
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
    public func module<M: AnyModule>(
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
    public func module<M: AnyModule>(
        _ type: M.Type, file: StaticString = #fileID, line: UInt = #line, _ make: (Self) -> M
    ) -> Self {
        register(make(self), as: [type], file: file, line: line)
        return self
    }
}

extension Component {
    private func register(_ module: AnyModule, as types: [AnyModule.Type], file: StaticString, line: UInt) {
        guard module.belongs(to: self) else {
            Diagnostics.foreignModule(
                Swift.type(of: module), component: Swift.type(of: self), file: file, line: line)
        }
        let replaced = core.withLock { state in
            types.compactMap { type -> AnyModule? in
                let key = ObjectIdentifier(type)
                if modules.value(for: TypeKey(type)) != nil
                    || state.moduleCreations.first(where: { $0.type == key }) != nil
                {
                    Diagnostics.lateModule(type, component: Swift.type(of: self), file: file, line: line)
                }
                return state.registeredModules.updateValue(module, forKey: key)
            }
        }
        // Released after the lock: a module's deinitializer may run user code.
        withExtendedLifetime(replaced) {}
    }

    /// Publishes the registered module of `type`, or creates the default one, exactly once.
    ///
    /// The first thread to ask creates the module with no lock held, in a cell of its own; others
    /// wait for it, and a module whose initializer needs itself stops the program with the path.
    @usableFromInline func firstUse<M: AnyModule>(of type: M.Type, file: StaticString, line: UInt) -> M {
        let key = ObjectIdentifier(type)
        let cell: OnceCell<StrongStorage<AnyModule>>? = core.withLock { state in
            if modules.value(for: TypeKey(type)) != nil { return nil }
            if let registered = state.registeredModules.removeValue(forKey: key) {
                modules.insert(registered, for: TypeKey(type))
                return nil
            }
            if let creating = state.moduleCreations.first(where: { $0.type == key }) { return creating.cell }
            let made = OnceCell<StrongStorage<AnyModule>>.make()
            state.moduleCreations.append((key, made))
            return made
        }
        guard let cell else { return modules.instance(of: M.self)! }
        let frame = Frame(
            .moduleCreation, owner: UInt(bitPattern: ObjectIdentifier(self)),
            component: UInt(bitPattern: ObjectIdentifier(self)),
            site: ProviderSite(file: file, line: line, column: 0, function: "init(_:)"), type: type,
            subject: type, componentType: Swift.type(of: self))
        let module = cell.resolve(
            in: .current, frame: frame,
            build: {
                type.checkThread(for: self, file: file, line: line)
                return type.makeDefault(for: self, file: file, line: line)
            }, configures: false, configure: { _ in })
        // Whoever gets the module first publishes it, in the same step that retires the cell.
        core.withLock { state in
            if modules.value(for: TypeKey(type)) == nil { modules.insert(module, for: TypeKey(type)) }
            state.moduleCreations.removeAll { $0.type == key }
        }
        // Registered under the key of `M`, so an `M`; read back through the table, which says so.
        return modules.instance(of: M.self)!
    }
}
