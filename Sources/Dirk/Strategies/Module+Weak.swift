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
    ///   - file: Identifies the provider, with `line`, `column` and `function`, and names it in
    ///     messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: () throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(file, line, column, function, make: { _ throws(Failure) in try factory() })
    }

    /// Provides a weakly shared instance built by a factory that receives the component.
    /// See `weak(_:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(file, line, column, function, make: factory)
    }

    /// Provides a weakly shared instance, built by a factory that receives the component, and
    /// configures each new one after it is cached.
    /// See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(file, line, column, function, make: factory, configures: true, configure: configure)
    }

    /// Provides a weakly shared instance built without the component and configures each new
    /// one after it is cached. See `weak(_:)` and `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance. If it throws, nothing is cached.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject & Sendable, Failure: Error>(
        _ factory: () throws(Failure) -> T,
        configure: (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(
            file, line, column, function, make: { _ throws(Failure) in try factory() }, configures: true,
            configure: configure)
    }
}

extension Module {
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
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: Sendable, Failure: Error>(
        _ factory: () throws(Failure) -> T, object: (T) -> AnyObject,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(
            file, line, column, function, make: { _ throws(Failure) in try factory() }, object: object)
    }

    /// Provides a weakly shared instance of a class-bound protocol type, built by a factory that
    /// receives the component. See `weak(_:object:file:line:column:function:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - object: The object the component refers to weakly, which a value holds: write `{ $0 }`.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, object: (T) -> AnyObject,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try weaklyShared(file, line, column, function, make: factory, object: object)
    }
}

extension Module {
    /// A `weak` provider's value, through the pipeline.
    @inlinable @inline(never)
    func weaklyShared<T: AnyObject, Failure: Error>(
        _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString,
        make: (C) throws(Failure) -> T, configures: Bool = false,
        configure: (T, C) throws(Failure) -> Void = { _, _ in }
    ) throws(Failure) -> T {
        try cached(
            .weak, file, line, column, function, make: make, configures: configures, configure: configure,
            erase: Erasure.object(ofInstance:), restore: { Erasure.instance(of: $0, as: T.self) })
    }

    /// The value of a `weak` provider of a class-bound protocol type, through the pipeline: the
    /// cell refers weakly to `object` of it, which the value is a reference to.
    @inlinable @inline(never)
    func weaklyShared<T, Failure: Error>(
        _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString,
        make: (C) throws(Failure) -> T, object: (T) -> AnyObject
    ) throws(Failure) -> T {
        try cached(
            .weak, file, line, column, function, make: make, configures: false,
            configure: { (_, _) throws(Failure) in },
            erase: object, restore: { $0 as! T })
    }
}
