extension ModuleBase {
    /// Provides a new instance on every call, built by a factory that needs no component.
    ///
    /// ```swift
    /// func request() -> Request { transient { Request() } }
    /// ```
    ///
    /// **Lifetime:** whatever the caller gives it; Dirk keeps no reference. Each caller owns its
    /// instance, so `T` need not be `Sendable`: this is the home of a non-`Sendable` object.
    ///
    /// A transient that calls itself, even with other arguments, stops the program with the path:
    /// Dirk cannot tell an endless recursion from one that ends.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. Its error reaches the caller unchanged.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: A new instance.
    @_disfavoredOverload @inlinable public func transient<T, Failure: Error>(
        _ factory: (()) throws(Failure) -> T, id: ProviderID? = nil, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) throws(Failure) -> T {
        try buildNew(
            ProviderSite(id, file, line, column, function), make: { _ throws(Failure) in try factory(()) })
    }

    /// Provides a new instance on every call, built by a factory that receives the component.
    ///
    /// ```swift
    /// func session() -> Session {
    ///     transient { c in Session(store: c.data.store(), api: c.network.api()) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: A new instance.
    @inlinable public func transient<T, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, id: ProviderID? = nil, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) throws(Failure) -> T { try buildNew(ProviderSite(id, file, line, column, function), make: factory) }

    /// A `transient`'s new value. While the component's attention word is zero, the factory runs here,
    /// in the caller's step, inside the step that `runTransient` enters; otherwise the call takes the
    /// pipeline, through `resolveInCell`, which builds it in no cell.
    @inlinable @inline(__always) func buildNew<T, Failure: Error>(
        _ site: ProviderSite, make: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        guard storage.attention == 0 else { return try buildNewThroughPipeline(site, make: make) }
        do {
            return try ResolutionContext.withCurrent { context in
                try runTransient(site: site, type: T.self, in: context) { component in
                    try self.make(
                        make, key: ProviderKey(site: site, type: T.self), strategy: .transient,
                        component: component
                    ).value
                }
            }
        } catch { throw factoryError(error, as: Failure.self, site: site) }
    }

    /// A `transient`'s new value through the pipeline: out of line, so that a provider stays small.
    @inlinable @inline(never) func buildNewThroughPipeline<T, Failure: Error>(
        _ site: ProviderSite, make: (C) throws(Failure) -> T
    ) throws(Failure) -> T { try resolveInCell(.transient, site, make: make) }
}
