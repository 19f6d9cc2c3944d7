extension Module {
    /// Provides one instance per component, built on the first call and returned by every later
    /// one.
    ///
    /// ```swift
    /// func store() -> Store { single { Store() } }
    /// ```
    ///
    /// **Lifetime:** until the component is released or ``Component/reset(file:line:)``.
    ///
    /// **Thread safety:** when many threads make the first call at once, one builds and the others
    /// wait for that one instance. A cached instance is read under the provider's own lock, held
    /// for a few instructions.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default. See <doc:Strategies#Provider-identity>.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance. If it throws, nothing is cached, the error reaches the
    ///     caller and every caller waiting for the same build, and the next call tries again.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T
    ) throws(Failure) -> T {
        let key = ProviderKey(file: file, line: line, column: column, function: function, type: T.self)
        if slots.attention == 0, let value = slots.strongCell(for: key, as: T.self)?.readyValue { return value }
        return try resolve(
            SinglePolicy<T>(), key: key,
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() })
    }

    /// Provides one instance per component, built by a factory that receives the component.
    ///
    /// ```swift
    /// func repository() -> Repository { single { c in Repository(store: c.data.store()) } }
    /// ```
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default. See the first `single` overload.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance from the component's other providers.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        let key = ProviderKey(file: file, line: line, column: column, function: function, type: T.self)
        if slots.attention == 0, let value = slots.strongCell(for: key, as: T.self)?.readyValue { return value }
        return try resolve(
            SinglePolicy<T>(), key: key,
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory)
    }

    /// Provides one instance per component and configures it after it is cached.
    ///
    /// `configure` runs once per new instance, after the instance is cached and before the
    /// outermost provider call returns. Instances that refer to each other set those references
    /// here (setter injection): while `configure` runs, this thread already gets the cached
    /// instance from the provider, so a cycle through `configure` works.
    ///
    /// ```swift
    /// func parent() -> Parent {
    ///     single({ Parent() }, configure: { parent, c in parent.child = c.family.child() })
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance; it must not need the instances `configure` sets.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    /// - Returns: The component's instance.
    @inlinable public func single<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            SinglePolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory,
            configures: true, configure: configure)
    }

    /// Provides one instance per component, built without the component and configured after it
    /// is cached. See `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    /// - Returns: The component's instance.
    @inlinable public func single<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void
    ) throws(Failure) -> T {
        try resolve(
            SinglePolicy<T>(),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() }, configures: true, configure: configure)
    }
}

/// `single`: one instance per component, in a cell of the provider's slot.
@usableFromInline struct SinglePolicy<Value>: CachePolicy {
    @inlinable init() {}

    @inlinable var strategy: ProviderStrategy { .single }

    @inlinable func makeSlot() -> OnceCell<StrongStorage<Value>> { .make() }

    @inlinable func hasInstance(in slot: OnceCell<StrongStorage<Value>>, context: ResolutionContext) -> Bool {
        slot.hasValue
    }

    @inlinable func resolve<Failure: Error>(
        in slot: OnceCell<StrongStorage<Value>>, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try slot.resolve(in: context, frame: frame, build: build, configures: configures, configure: configure)
    }
}
