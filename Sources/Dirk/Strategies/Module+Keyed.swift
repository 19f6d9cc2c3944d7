extension Module {
    /// Provides one instance per component per key, for providers that take arguments.
    ///
    /// ```swift
    /// func user(id: String) -> User { single(key: id) { User(id: id) } }
    /// ```
    ///
    /// **Lifetime:** each key's instance lives until the component is released or
    /// ``Component/reset(file:line:)``, which drops the keys too.
    ///
    /// **Keys:** Dirk runs the key's `hash(into:)` and `==` with no lock held. They may resolve
    /// other providers, but not this one: a key whose hashing calls its own provider stops the
    /// program.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached, and every
    ///     caller waiting for the same key gets the error.
    /// - Returns: The component's instance for `key`.
    @inlinable public func single<T, Key: Hashable, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        key: Key,
        _ factory: () throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            KeyedPolicy<T>(key: AnyHashable(key)),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function),
            make: { _ throws(Failure) in try factory() })
    }

    /// Provides one instance per component per key, built by a factory that receives the
    /// component. See `single(key:_:)`.
    ///
    /// - Parameters:
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached.
    /// - Returns: The component's instance for `key`.
    @inlinable public func single<T, Key: Hashable, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        key: Key,
        _ factory: (C) throws(Failure) -> T
    ) throws(Failure) -> T {
        try resolve(
            KeyedPolicy<T>(key: AnyHashable(key)),
            key: ProviderKey(file: file, line: line, column: column, function: function, type: T.self),
            site: ProviderSite(file: file, line: line, column: column, function: function), make: factory)
    }
}

/// `single(key:)`: one instance per component per key, in the cells of the provider's slot.
@usableFromInline struct KeyedPolicy<Value>: CachePolicy {
    @usableFromInline let key: AnyHashable

    @inlinable init(key: AnyHashable) {
        self.key = key
    }

    @inlinable var strategy: ProviderStrategy { .keyedSingle }

    @inlinable func makeSlot() -> KeyedCells<Value> { KeyedCells() }

    @inlinable func hasInstance(in slot: KeyedCells<Value>, context: ResolutionContext) -> Bool {
        cell(in: slot, context: context, frame: nil).hasValue
    }

    @inlinable func resolve<Failure: Error>(
        in slot: KeyedCells<Value>, context: ResolutionContext, frame: Frame,
        build: () throws(Failure) -> Value,
        configures: Bool, configure: (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try cell(in: slot, context: context, frame: frame)
            .resolve(in: context, frame: frame, build: build, configures: configures, configure: configure)
    }

    /// The key's cell, found while the key's user code runs as a step of its own, so that a key
    /// whose hashing calls this provider again is caught instead of recursing without end.
    @inlinable func cell(in slot: KeyedCells<Value>, context: ResolutionContext, frame: Frame?) -> KeyedCells<Value>.Cell {
        guard let frame else { return slot.cell(for: key) }
        let hashing = Frame(
            .keyHashing, strategy: .keyedSingle, owner: frame.owner, component: frame.component, site: frame.site,
            type: frame.type,
            subject: frame.subject, componentType: frame.componentType)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: frame) }
        context.enter(hashing)
        defer { context.leave() }
        return slot.cell(for: key)
    }
}
