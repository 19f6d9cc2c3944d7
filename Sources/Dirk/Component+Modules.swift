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
    @inlinable @inline(__always)
    public func module<M: AnyModule>(file: StaticString = #fileID, line: UInt = #line) -> M {
        let module =
            modulesByType.firstValue(ifType: M.self, as: AnyModule.self)
            ?? laterModule(of: M.self, file: file, line: line)
        // A cast of the address, not `takeUnretainedValue()`: the caller's optimizer sees the
        // retain this implies and can drop it, with the release after the provider call, when
        // the provider's path releases nothing (a cached `single`). The component keeps the
        // module alive for its lifetime.
        return unsafeBitCast(module.toOpaque(), to: M.self)
    }

    /// Registers the module that `make` creates for this component, in place of its own type and
    /// of every module class it inherits from.
    ///
    /// Needed only to configure or substitute a module: `module()` creates modules on first use.
    ///
    /// ```swift
    /// let app = AppComponent().module { StubNetworkModule($0) }  // serves `network` too
    /// ```
    ///
    /// Register modules before the component's first resolution; registering one whose type is
    /// already in use stops the program. A later registration replaces an earlier one.
    ///
    /// - Parameter make: Creates the module from this component.
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
    private func register(
        _ module: AnyModule, as types: [AnyModule.Type], file: StaticString, line: UInt
    ) {
        guard module.belongs(to: self) else {
            Diagnostics.foreignModule(
                Swift.type(of: module), component: Swift.type(of: self), file: file, line: line)
        }
        let replaced = withStateLock { state in
            types.compactMap { type -> AnyModule? in
                let key = ObjectIdentifier(type)
                if modulesByType.value(for: LookupKey(type: type), as: AnyModule.self) != nil
                    || state.moduleCreations.builder(of: key) != nil
                {
                    Diagnostics.lateModule(type, component: Swift.type(of: self), file: file, line: line)
                }
                return state.registeredModules.updateValue(module, forKey: key)
            }
        }
        // Released after the lock: a module's deinitializer may run user code.
        _ = replaced
    }

    /// The module of `type` when it is not the component's first: looked up in the table, or
    /// published or created by `firstUse`. Kept out of line, so that the accessor's path to the
    /// first module stays short.
    /// The module is returned unretained: the component keeps every published module for its
    /// lifetime.
    @usableFromInline
    func laterModule(of type: AnyModule.Type, file: StaticString, line: UInt) -> Unmanaged<AnyModule> {
        if let module = modulesByType.value(for: LookupKey(type: type), as: AnyModule.self) {
            return module
        }
        return .passUnretained(firstUse(of: type, file: file, line: line))
    }

    /// Publishes the registered module of `type`, or creates the default one, exactly once.
    ///
    /// The first thread to ask creates the module with no lock held; others wait for it, and a
    /// module whose initializer asks for itself stops the program with the path.
    func firstUse(of type: AnyModule.Type, file: StaticString, line: UInt) -> AnyModule {
        let site = CallSite(file: file, line: line, column: 0, function: "init(_:)")
        let key = ObjectIdentifier(type)
        let context = ResolutionContext.current.takeUnretainedValue()
        let frame = Frame(creating: type, in: self, at: site)
        while true {
            let step = withStateLock { state -> ModuleStep in
                if let module = modulesByType.value(for: LookupKey(type: type), as: AnyModule.self) {
                    return .found(module.takeUnretainedValue())
                }
                if !state.registeredModules.isEmpty,
                    let module = state.registeredModules.removeValue(forKey: key)
                {
                    modulesByType.insert(module, for: LookupKey(type: type))
                    return .found(module)
                }
                guard let builder = state.moduleCreations.builder(of: key) else {
                    state.moduleCreations.begin(key, by: context)
                    return .create
                }
                if builder.toOpaque() == Unmanaged.passUnretained(context).toOpaque() {
                    Diagnostics.cycle(path: context.path(from: frame, closingWith: frame), at: frame)
                }
                return .wait(state.moduleCreations.construction(of: key, frame: frame, lock: self.state))
            }
            switch step {
            case .found(let module):
                return module
            case .wait(let construction):
                _ = construction.awaitBuilder(configuringValue: nil, context: context)
            case .create:
                context.enter(frame)
                defer { context.leave() }
                // A module's initializer cannot throw; a trap in it ends the program. It leaves
                // attaching the module to the publication below, under the same lock, unless it
                // created another module first.
                context.attachedOnPublish = (Unmanaged.passUnretained(self).toOpaque(), key)
                let module = type.makeDefault(for: self, at: site)
                context.attachedOnPublish = nil
                withStateLock { state in
                    state.attach(module)
                    modulesByType.insert(module, for: LookupKey(type: type))
                    state.moduleCreations.end(key)
                }
                return module
            }
        }
    }

    private enum ModuleStep {
        case found(AnyModule)
        case wait(Construction)
        case create
    }
}
