extension _ModuleOwner where Self: AnyModule {
    /// Calls `provider` so that every cached provider it calls directly (`single`,
    /// `single(key:)` or `weak`) builds a new instance and caches nothing: a fresh copy, while the
    /// cached instance stays in place for everyone else.
    ///
    /// ```swift
    /// let scratch = app.data.fresh { $0.store() }  // a new Store; app.data.store() is unchanged
    /// ```
    ///
    /// The new instance's dependencies resolve as usual, cached ones included, and its
    /// `configure:` closure runs. Only the calling thread is affected. A fresh copy of a provider
    /// with a `close:` action is the caller's to close: ``Component/shutdown(file:line:)`` closes
    /// only what the component keeps.
    ///
    /// - Parameter provider: Calls the providers to build afresh, on the module it receives.
    /// - Returns: What `provider` returns.
    public func fresh<T, Failure: Error>(_ provider: (Self) throws(Failure) -> T) throws(Failure) -> T {
        let context = ResolutionContext.current
        let previous = context.freshRequest
        context.freshRequest = (ObjectIdentifier(self), context.depth)
        storage.attention.add(1)
        defer {
            storage.attention.add(-1)
            context.freshRequest = previous
        }
        return try provider(self)
    }
}
