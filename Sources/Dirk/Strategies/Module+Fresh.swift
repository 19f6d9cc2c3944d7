import Synchronization

extension Module {
    /// Calls `provider` so that every cached provider it calls directly (`single`,
    /// `single(key:)` or `weak`) builds a new instance and caches nothing: a fresh copy, while the
    /// cached instance stays in place for everyone else.
    ///
    /// ```swift
    /// let scratch = app.data.fresh { $0.store() }  // a new Store; app.data.store() is unchanged
    /// ```
    ///
    /// The new instance's dependencies resolve as usual, cached ones included, and its
    /// `configure:` closure runs. Only the calling thread is affected.
    ///
    /// - Parameter provider: Calls the providers to build afresh, on the module it receives.
    /// - Returns: What `provider` returns.
    public func fresh<T>(_ provider: (Self) throws -> T) rethrows -> T {
        let context = ResolutionContext.current.takeUnretainedValue()
        let previous = context.freshRequest
        context.freshRequest = FreshRequest(
            module: Unmanaged.passUnretained(self).toOpaque(), depth: context.depth)
        addFreshRequests(1)
        defer {
            addFreshRequests(-1)
            context.freshRequest = previous
        }
        return try provider(unsafeDowncast(self, to: Self.self))
    }
}

extension Module {
    /// A new, uncached instance of the provider at `site`, if the calling thread asked this module
    /// for fresh instances with `fresh(_:)` at the current depth; nil otherwise.
    @usableFromInline
    func freshInstance<T>(
        _ site: CallSite,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T? {
        guard freshRequests.load(ordering: .relaxed) != 0 else { return nil }
        let context = ResolutionContext.current.takeUnretainedValue()
        guard let request = context.freshRequest,
            request.module == Unmanaged.passUnretained(self).toOpaque(),
            request.depth == context.depth
        else { return nil }
        let frame = Frame(provider: self, at: site, returning: T.self)
        context.enterUncached(frame)
        defer { context.leave() }
        return try withComponent(in: context, frame) { component in
            let value = try make(component)
            if configures { try configure(value, component) }
            return value
        }
    }
}
