import Synchronization

extension Module {
    /// Provides a new instance on every call.
    ///
    /// ```swift
    /// func request() -> Request { transient { Request() } }
    /// ```
    ///
    /// **Lifetime:** whatever the caller gives it; Dirk keeps no reference.
    ///
    /// - Parameter factory: Builds the instance. Its error reaches the caller unchanged.
    /// - Returns: A new instance.
    @inlinable
    public func transient<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T
    ) rethrows -> T {
        try uncached(
            CallSite(file: file, line: line, column: column, function: function),
            make: { _ in try factory() })
    }

    /// Provides a new instance on every call, built by a factory that receives the component.
    ///
    /// ```swift
    /// func session() -> Session {
    ///     transient { c in Session(store: c.data.store(), api: c.network.api()) }
    /// }
    /// ```
    ///
    /// - Parameter factory: Builds the instance from the component's other providers.
    /// - Returns: A new instance.
    @inlinable
    public func transient<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T
    ) rethrows -> T {
        try uncached(
            CallSite(file: file, line: line, column: column, function: function), make: factory)
    }
}

extension Module {
    /// Runs a `transient`'s factory as a frame of this thread's resolution.
    @inlinable @inline(__always)
    func uncached<T>(_ site: CallSite, make: (C) throws -> T) rethrows -> T {
        let frame = Frame(provider: self, at: site, returning: T.self)
        if observers.load(ordering: .relaxed) != 0 {
            observe(site, returning: T.self, strategy: "transient", isNew: true)
        }
        return try ResolutionContext.current._withUnsafeGuaranteedRef { context in
            context.enterUncached(frame)
            defer { context.leave() }
            return try withComponent(in: context, frame, make)
        }
    }
}
