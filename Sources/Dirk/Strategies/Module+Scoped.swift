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
    ///   - configure: Completes the instance once it is shared, as `single`'s does. If it throws,
    ///     nothing is kept.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @_disfavoredOverload @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (()) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        id: ProviderID? = nil, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .scoped, ProviderSite(id, file, line, column, function),
            make: { _ throws(Failure) in try factory(()) }, configure: configure)
    }

    /// Provides one instance per resolution, built by a factory that receives the component.
    /// See the `scoped` whose factory needs no component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - configure: Completes the instance once it is shared. If it throws, nothing is kept.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        id: ProviderID? = nil, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .scoped, ProviderSite(id, file, line, column, function), make: factory, configure: configure)
    }
}
