extension Module {
    /// Provides one instance per component from a factory that awaits, such as opening a
    /// database or reading configuration.
    ///
    /// ```swift
    /// func database() async throws -> Database { try await single { c in try await Database.open(c.config.url()) } }
    /// ```
    ///
    /// **Lifetime:** until the component is released or `reset()`, as for `single(_:)`.
    ///
    /// **Concurrency:** when many tasks make the first call at once, one builds and the others
    /// suspend until it is ready; no thread blocks. A factory that needs, through other async
    /// providers, the instance it is building stops the program with the cycle's path.
    ///
    /// - Parameter factory: Builds the instance from the component's providers. If it throws,
    ///   nothing is cached and the error reaches the caller; the next call tries again.
    /// - Returns: The component's instance.
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) async throws -> T
    ) async rethrows -> T {
        try await asyncSingle(
            CallSite(file: file, line: line, column: column, function: function), make: factory)
    }

    /// Provides one instance per component from a factory that awaits and needs no component.
    /// See `single(_:)` for async factories.
    ///
    /// - Parameter factory: Builds the instance.
    /// - Returns: The component's instance.
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () async throws -> T
    ) async rethrows -> T {
        try await asyncSingle(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try await factory() })
    }

    /// Provides a new instance on every call, from a factory that awaits.
    ///
    /// - Parameter factory: Builds the instance from the component's providers.
    /// - Returns: A new instance.
    public func transient<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) async throws -> T
    ) async rethrows -> T {
        let site = CallSite(file: file, line: line, column: column, function: function)
        let frame = Frame(provider: self, at: site, returning: T.self)
        let chain = AsyncChain.current
        if let chain, chain.contains(AsyncChain(frame: frame, parent: nil)) {
            Diagnostics.recursion(path: chain.path(from: frame) + [frame.name], at: frame)
        }
        let component = liveComponent(provider: frame.name, site: site)
        return try await AsyncChain.$current.withValue(AsyncChain(frame: frame, parent: chain)) {
            try await factory(component)
        }
    }
}

extension Module {
    func asyncSingle<T>(_ site: CallSite, make: (C) async throws -> T) async rethrows -> T {
        let slot = slot(at: site, returning: T.self, caching: .async).takeUnretainedValue()
        let frame = Frame(provider: self, at: site, returning: T.self)
        let component = liveComponent(provider: frame.name, site: site)
        let object = try await slot.asyncCell.unsafelyUnwrapped.resolve(frame: frame) {
            Holder(try await make(component))
        }
        return unsafeDowncast(object, to: Holder<T>.self).value
    }
}
