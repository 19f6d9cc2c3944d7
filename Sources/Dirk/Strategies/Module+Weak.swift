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
    /// - Parameters:
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            WeakPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() })
    }

    /// Provides a weakly shared instance built by a factory that receives the component.
    /// See `weak(_:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance from the component's other providers.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            WeakPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory)
    }

    /// Provides a weakly shared instance and configures each new one after it is cached.
    /// See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            WeakPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory,
            configures: true, configure: configure)
    }

    /// Provides a weakly shared instance built without the component and configures each new
    /// one after it is cached. See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            WeakPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() }, configures: true, configure: configure)
    }
}

/// `weak`: one instance while someone holds it, in a cell of the provider's slot that refers to
/// it weakly.
@usableFromInline struct WeakPolicy<Value: AnyObject>: CachePolicy {
    @inlinable init() {}

    @inlinable var strategy: ProviderStrategy { .weak }

    @inlinable func makeSlot() -> OnceCell<WeakStorage<Value>> { .make() }

    @inlinable func hasInstance(in slot: OnceCell<WeakStorage<Value>>, context: ResolutionContext) -> Bool {
        slot.hasValue
    }

    @inlinable func resolve<Failure: Error>(
        in slot: OnceCell<WeakStorage<Value>>, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try slot.resolve(in: context, frame: frame, build: build, configures: configures, configure: configure)
    }
}
