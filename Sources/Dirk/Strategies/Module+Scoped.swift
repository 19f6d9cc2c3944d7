extension Module {
    /// Provides one instance per resolution: every request made while one outermost provider
    /// call runs (that call and everything it resolves) gets the same instance, and the next
    /// outermost call gets a new one.
    ///
    /// ```swift
    /// func request() -> RequestContext { scoped { RequestContext() } }
    /// ```
    ///
    /// **Lifetime:** until the outermost provider call returns. Inside an async provider's
    /// factory, the resolution is the async one: a `scoped` provider asked for before and after an
    /// `await`, on whatever thread, gives the same instance.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            ScopedPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() })
    }

    /// Provides one instance per resolution, built by a factory that receives the component.
    /// See `scoped(_:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance from the component's other providers.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            ScopedPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory)
    }

    /// Provides one instance per resolution and configures it once it is shared.
    /// See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            ScopedPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory,
            configures: true, configure: configure)
    }

    /// Provides one instance per resolution, built without the component, and configures it
    /// once it is shared. See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            ScopedPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() }, configures: true, configure: configure)
    }
}

/// `scoped`: one instance per resolution, in a cell of the resolution's `ScopeStore`, made for
/// the provider's slot.
@usableFromInline struct ScopedPolicy<Value>: CachePolicy {
    @inlinable init() {}

    @inlinable var strategy: ProviderStrategy { .scoped }

    @inlinable func makeSlot() -> ProviderMarker { ProviderMarker() }

    @inlinable func hasInstance(in slot: ProviderMarker, context: ResolutionContext) -> Bool {
        cell(in: slot, context: context).hasValue
    }

    @inlinable func resolve<Failure: Error>(
        in slot: ProviderMarker, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try cell(in: slot, context: context)
            .resolve(in: context, frame: frame, build: build, configures: configures, configure: configure)
    }

    @inlinable func cell(in slot: ProviderMarker, context: ResolutionContext) -> OnceCell<StrongStorage<Value>> {
        context.scopeStore.cell(for: slot) { OnceCell<StrongStorage<Value>>.make() }
    }
}
