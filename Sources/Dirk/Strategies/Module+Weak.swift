import Synchronization

extension Module {
    /// Provides the same instance for as long as anyone outside the component holds it, and a
    /// new one after it was released.
    ///
    /// ```swift
    /// func images() -> ImageCache { weak { ImageCache() } }
    /// ```
    ///
    /// **Lifetime:** as long as the callers keep it; the component refers to it weakly.
    ///
    /// **Thread safety:** threads that ask while it is being built wait for that one instance.
    ///
    /// - Parameter factory: Builds the instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    public func weak<T: AnyObject>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T
    ) rethrows -> T {
        try weaklyCached(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try factory() }, configures: false, configure: { _, _ in })
    }

    /// Provides a weakly shared instance built by a factory that receives the component.
    /// See `weak(_:)`.
    ///
    /// - Parameter factory: Builds the instance from the component's other providers.
    /// - Returns: The live instance, or a new one.
    public func weak<T: AnyObject>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T
    ) rethrows -> T {
        try weaklyCached(
            CallSite(file: file, line: line, column: column, function: function),
            make: factory, configures: false, configure: { _, _ in })
    }

    /// Provides a weakly shared instance and configures each new one after it is cached.
    /// See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    public func weak<T: AnyObject>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try weaklyCached(
            CallSite(file: file, line: line, column: column, function: function),
            make: factory, configures: true, configure: configure)
    }

    /// Provides a weakly shared instance built without the component and configures each new
    /// one after it is cached. See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    public func weak<T: AnyObject>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try weaklyCached(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try factory() }, configures: true, configure: configure)
    }
}

extension Module {
    func weaklyCached<T: AnyObject>(
        _ site: CallSite,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        if let fresh = try freshInstance(site, make: make, configures: configures, configure: configure) {
            return fresh
        }
        let slot = slot(at: site, returning: T.self, caching: .one(.weak)).takeUnretainedValue()
        let frame = Frame(provider: self, at: site, returning: T.self)
        let component = liveComponent(provider: frame.name, site: site)
        if observers.load(ordering: .relaxed) != 0 {
            observe(site, returning: T.self, strategy: "weak", cell: slot.cell.unsafelyUnwrapped)
        }
        let instance = try slot.cell.unsafelyUnwrapped.resolve(
            frame: frame, in: component,
            make: { try make(component) as AnyObject },
            configures: configures,
            configure: { try configure($0 as! T, component) })
        return instance as! T
    }
}
