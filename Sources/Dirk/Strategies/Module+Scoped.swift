import Synchronization

extension Module {
    /// Provides one instance per resolution: every request made while one outermost provider
    /// call runs (that call and everything it resolves) gets the same instance, and the next
    /// outermost call gets a new one.
    ///
    /// ```swift
    /// func request() -> RequestContext { scoped { RequestContext() } }
    /// ```
    ///
    /// **Lifetime:** until the outermost provider call on the same thread returns.
    ///
    /// - Parameter factory: Builds the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    public func scoped<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T
    ) rethrows -> T {
        try perResolution(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try factory() }, configures: false, configure: { _, _ in })
    }

    /// Provides one instance per resolution, built by a factory that receives the component.
    /// See `scoped(_:)`.
    ///
    /// - Parameter factory: Builds the instance from the component's other providers.
    /// - Returns: This resolution's instance.
    public func scoped<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T
    ) rethrows -> T {
        try perResolution(
            CallSite(file: file, line: line, column: column, function: function),
            make: factory, configures: false, configure: { _, _ in })
    }

    /// Provides one instance per resolution and configures it once it is shared.
    /// See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    public func scoped<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try perResolution(
            CallSite(file: file, line: line, column: column, function: function),
            make: factory, configures: true, configure: configure)
    }

    /// Provides one instance per resolution, built without the component, and configures it
    /// once it is shared. See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    public func scoped<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try perResolution(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try factory() }, configures: true, configure: configure)
    }
}

extension Module {
    func perResolution<T>(
        _ site: CallSite,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        let slot = slot(at: site, returning: T.self, caching: .none).takeUnretainedValue()
        let frame = Frame(provider: self, at: site, returning: T.self)
        let context = ResolutionContext.current.takeUnretainedValue()
        if observers.load(ordering: .relaxed) != 0 {
            observe(site, returning: T.self, strategy: "scoped", isNew: context.scopedEntry(for: slot) == nil)
        }
        if let entry = context.scopedEntry(for: slot) {
            switch entry.phase {
            case .building:
                Diagnostics.cycle(path: context.path(from: frame, closingWith: frame), at: frame)
            case .configuring(let value), .ready(let value):
                return unsafeDowncast(value, to: Holder<T>.self).value
            }
        }
        let component = liveComponent(provider: frame.name, site: site)
        context.enter(frame)
        defer { context.leave() }
        let entry = ScopedEntry(slot: slot)
        context.setScopedEntry(entry)
        do {
            let holder = Holder(try make(component))
            if configures {
                entry.phase = .configuring(holder)
                try configure(holder.value, component)
            }
            entry.phase = .ready(holder)
            return holder.value
        } catch {
            context.removeScopedEntry(for: slot)
            throw error
        }
    }
}
