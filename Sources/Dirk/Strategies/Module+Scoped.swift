extension Module {
    /// Provides one instance per resolution, built by a factory that needs no component: every
    /// request made while one outermost provider call runs (that call and everything it resolves)
    /// gets the same instance, and the next outermost call gets a new one.
    ///
    /// ```swift
    /// func request() -> RequestContext { scoped { RequestContext() } }
    /// ```
    ///
    /// **Lifetime:** until the outermost provider call returns. Inside an async provider's
    /// factory, the resolution is the async one: a `scoped` provider asked for before and after an
    /// `await`, on whatever thread, gives the same instance, and so do the child tasks of that
    /// resolution (`async let`), which may run at once: `T` must be `Sendable`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. If it throws, nothing is kept.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: () throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try shared(.scoped, file, line, column, function, make: { _ throws(Failure) in try factory() })
    }

    /// Provides one instance per resolution, built by a factory that receives the component.
    /// See `scoped(_:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try shared(.scoped, file, line, column, function, make: factory)
    }

    /// Provides one instance per resolution, built by a factory that receives the component, and
    /// configures it once it is shared.
    /// See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try shared(
            .scoped, file, line, column, function, make: factory, configures: true, configure: configure)
    }

    /// Provides one instance per resolution, built without the component, and configures it
    /// once it is shared. See `scoped(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is kept.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: () throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try shared(
            .scoped, file, line, column, function, make: { _ throws(Failure) in try factory() },
            configures: true, configure: configure)
    }
}
