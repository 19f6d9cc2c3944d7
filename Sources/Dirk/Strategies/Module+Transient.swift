extension Module {
    /// Provides a new instance on every call.
    ///
    /// ```swift
    /// func request() -> Request { transient { Request() } }
    /// ```
    ///
    /// **Lifetime:** whatever the caller gives it; Dirk keeps no reference.
    ///
    /// A transient that calls itself, even with other arguments, stops the program with the path:
    /// Dirk cannot tell an endless recursion from one that ends.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance. Its error reaches the caller unchanged.
    /// - Returns: A new instance.
    @inlinable public func transient<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            TransientPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() })
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
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance from the component's other providers.
    /// - Returns: A new instance.
    @inlinable public func transient<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            TransientPolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory)
    }
}

/// `transient`: nothing kept; each call is a step of the resolution, which must not contain the
/// same step already.
@usableFromInline struct TransientPolicy<Value>: CachePolicy {
    @inlinable init() {}

    @inlinable var strategy: ProviderStrategy { .transient }

    @inlinable func makeSlot() -> ProviderMarker { ProviderMarker() }

    @inlinable func hasInstance(in slot: ProviderMarker, context: ResolutionContext) -> Bool { false }

    @inlinable func resolve<Failure: Error>(
        in slot: ProviderMarker, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        if let enclosing = context.enclosing(frame) {
            Diagnostics.recursion(path: context.steps(from: enclosing) + [frame], at: frame)
        }
        context.enter(frame)
        defer { context.leave() }
        let value = try build()
        if configures {
            context.configurationDepth += 1
            defer { context.configurationDepth -= 1 }
            try configure(value)
        }
        return value
    }
}
