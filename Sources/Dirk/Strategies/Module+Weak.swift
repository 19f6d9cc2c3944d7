extension Module {
    /// Provides the same instance, built by a factory that needs no component, for as long as
    /// anyone outside the component holds it, and a new one after it was released.
    ///
    /// ```swift
    /// func images() -> ImageCache { weak { ImageCache() } }
    /// ```
    ///
    /// **Lifetime:** as long as the callers keep it; the component refers to it weakly.
    ///
    /// **Thread safety:** threads that ask while it is being built wait for that one instance.
    /// Every caller that asks while it lives gets it, so `T` must be `Sendable`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. If it throws, nothing is cached.
    ///   - configure: Completes each new instance once it is cached, as `single`'s does. If it
    ///     throws, nothing is cached.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @_disfavoredOverload @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: (()) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        id: ProviderID? = nil, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveWeak(
            ProviderSite(id, file, line, column, function), make: { _ throws(Failure) in try factory(()) },
            configure: configure)
    }

    /// Provides a weakly shared instance built by a factory that receives the component.
    /// See the `weak` whose factory needs no component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - configure: Completes each new instance once it is cached.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        id: ProviderID? = nil, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveWeak(ProviderSite(id, file, line, column, function), make: factory, configure: configure)
    }
}

extension ModuleBase {
    /// Provides a weakly shared instance of a class-bound protocol type, so that a test can
    /// override the provider with a fake of the protocol, as it can a `single`.
    ///
    /// ```swift
    /// func feed() -> any FeedService { weak { LiveFeedService() as any FeedService } object: { $0 } }
    /// ```
    ///
    /// Everything said of `weak(_:)` holds. The factory ends with `as any FeedService`, so that the
    /// strategy builds the protocol type, which an override's fake can take the place of.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. If it throws, nothing is cached.
    ///   - object: The object the component refers to weakly, which a value holds: write `{ $0 }`.
    ///     It compiles only where `T` is a class or a protocol that requires `AnyObject`, which is
    ///     how a `weak` of a value type is refused.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @_disfavoredOverload @inlinable public func weak<T: Sendable, Failure: Error>(
        _ factory: (()) throws(Failure) -> T, object: (T) -> AnyObject, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .weak, ProviderSite(id, file, line, column, function),
            make: { _ throws(Failure) in try factory(()) }, erase: object, restore: { $0 as! T })
    }

    /// Provides a weakly shared instance of a class-bound protocol type, built by a factory that
    /// receives the component. See `weak(_:object:id:file:line:column:function:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - object: The object the component refers to weakly, which a value holds: write `{ $0 }`.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, object: (T) -> AnyObject, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .weak, ProviderSite(id, file, line, column, function), make: factory, erase: object,
            restore: { $0 as! T })
    }

    /// A `weak`'s instance of a class or class-bound existential, which the pipeline holds as the
    /// object itself, so that the component refers to it weakly.
    @inlinable func resolveWeak<T: AnyObject, Failure: Error>(
        _ site: ProviderSite, make: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)?
    ) throws(Failure) -> T {
        try resolveInCell(
            .weak, site, make: make, configure: configure, erase: { $0 },
            restore: { Erasure.instance(of: $0, as: T.self) })
    }
}
