extension Module {
    /// Provides one instance per component per key, for providers that take arguments, built by a
    /// factory that needs no component.
    ///
    /// ```swift
    /// func user(id: String) -> User { single(key: id) { User(id: id) } }
    /// ```
    ///
    /// **Lifetime:** each key's instance lives until the component is released or
    /// ``Component/reset(file:line:)``, which drops the keys too.
    ///
    /// **Sendable:** every caller that asks for a key gets its one instance, so `T` must be
    /// `Sendable`.
    ///
    /// **Keys:** Dirk runs the key's `hash(into:)` and `==` with no lock held. They may resolve
    /// other providers, but not this one: a key whose hashing calls its own provider stops the
    /// program.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached, and every
    ///     caller waiting for the same key gets the error.
    ///   - configure: Completes each key's instance once it is cached, as `single`'s does. If it
    ///     throws, nothing is cached for the key.
    ///   - close: Closes each key's instance at ``Component/shutdown(file:line:)``; leave it out
    ///     for instances that need no closing.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @_disfavoredOverload @inlinable public func single<T: Sendable, Key: Hashable, Failure: Error>(
        key: Key, _ factory: (()) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try single(
            key: key, { _ throws(Failure) in try factory(()) }, configure: configure, close: close, id: id,
            file: file, line: line, column: column, function: function)
    }

    /// Provides one instance per component per key, built by a factory that receives the
    /// component. See the `single(key:)` whose factory needs no component.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached.
    ///   - configure: Completes each key's instance once it is cached.
    ///   - close: Closes each key's instance at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @inlinable public func single<T: Sendable, Key: Hashable, Failure: Error>(
        key: Key, _ factory: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        // Made once: the pipeline reads it to find the key's cell, and again for a cycle's message.
        let keyValue = AnyHashable(key)
        return try resolveInCell(
            .keyedSingle, ProviderSite(id, file, line, column, function), keyValue: { keyValue },
            make: factory, configure: configure, closing: Self.closing(close))
    }
}
