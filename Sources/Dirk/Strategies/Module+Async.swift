extension ModuleBase {
    /// Provides one instance per component from an async factory that receives the component,
    /// such as opening a database or reading configuration.
    ///
    /// ```swift
    /// func database() async throws -> Database {
    ///     try await single { c in try await Database.open(c.settings.url()) }
    /// }
    /// ```
    ///
    /// **Lifetime:** until the component is released or ``Component/reset(file:line:)``, as for a
    /// synchronous `single`.
    ///
    /// **Concurrency:** when many tasks make the first call at once, one builds and the others
    /// suspend until it is ready; no thread blocks. Every task gets that one instance, so `T` must
    /// be `Sendable`. A waiting task whose provider can throw
    /// `CancellationError` (it throws `any Error`) stops waiting as soon as it is cancelled; the
    /// build goes on for the others. When the building task is cancelled and its factory throws
    /// `CancellationError`, that error is its own: a waiting task that was not cancelled builds
    /// anew. A factory that needs, through other async providers, the
    /// instance it is building stops the program with the cycle's path, as does a cycle of tasks
    /// that wait for each other.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's providers. If it throws, nothing is
    ///     cached, the error reaches the caller and every task waiting for the same build (but for
    ///     the building task's own cancellation, above), and the next call tries again.
    ///   - configure: Completes the instance right after `factory` returns, before any other task gets
    ///     it, and may await; this task gets the instance meanwhile, so a cycle through `configure`
    ///     resolves when it is asked from this provider. A task whose own `configure` waits for
    ///     this one's instance may take it meanwhile, and its call returns only once `configure`
    ///     has returned, so a ring of two resolves from both ends at once. If it throws, nothing
    ///     is cached.
    ///   - close: Closes the instance at ``Component/shutdown(file:line:)``, after the instances
    ///     built after it, such as a database's pool after its repositories. Leave it out for an
    ///     instance that needs no closing.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable public func single<T: Sendable, Failure: Error>(
        _ factory: (C) async throws(Failure) -> T, configure: ((T, C) async throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) async throws(Failure) -> T {
        try await readyOrBuiltAsync(
            ProviderSite(id, file, line, column, function), make: factory, configure: configure,
            closing: Self.closing(close))
    }

    /// Provides one instance per component from an async factory that needs no component.
    /// See the async `single(_:)` that receives the component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance right after `factory` returns, before any other task gets
    ///     it, and may await; this task gets the instance meanwhile, so a cycle through `configure`
    ///     resolves when it is asked from this provider. A task whose own `configure` waits for
    ///     this one's instance may take it meanwhile, and its call returns only once `configure`
    ///     has returned, so a ring of two resolves from both ends at once. If it throws, nothing
    ///     is cached.
    ///   - close: Closes the instance at ``Component/shutdown(file:line:)``, after the instances
    ///     built after it, such as a database's pool after its repositories. Leave it out for an
    ///     instance that needs no closing.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @_disfavoredOverload @inlinable public func single<T: Sendable, Failure: Error>(
        _ factory: (()) async throws(Failure) -> T, configure: ((T, C) async throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) async throws(Failure) -> T {
        try await readyOrBuiltAsync(
            ProviderSite(id, file, line, column, function),
            make: { _ async throws(Failure) in try await factory(()) }, configure: configure,
            closing: Self.closing(close))
    }

    /// Provides one instance per component per key from an async factory that receives the
    /// component: the async form of `single(key:)`, for a value loaded by its key.
    ///
    /// ```swift
    /// func profile(id: String) async throws -> Profile {
    ///     try await single(key: id) { c in try await c.network.api().profile(id) }
    /// }
    /// ```
    ///
    /// Each key behaves as the async `single` does: tasks that ask for one key at once wait for one
    /// build, without blocking a thread; a cancelled waiter stops waiting; a failed build caches
    /// nothing. The keys are those of the synchronous `single(key:)`: hashed and compared with no lock
    /// held, and dropped by ``Component/reset(file:line:)``.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached for the key.
    ///   - configure: Completes each key's instance right after `factory` returns, as the async
    ///     `single`'s does. If it throws, nothing is cached for the key.
    ///   - close: Closes each key's instance at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @inlinable public func single<T: Sendable, Key: Hashable, Failure: Error>(
        key: Key, _ factory: (C) async throws(Failure) -> T,
        configure: ((T, C) async throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) async throws(Failure) -> T {
        try await resolveAsync(
            .asyncKeyedSingle, ProviderSite(id, file, line, column, function), keyValue: AnyHashable(key),
            make: factory, configure: configure, closing: Self.closing(close))
    }

    /// Provides one instance per component per key from an async factory that needs no component.
    /// See the async `single(key:)` that receives the component.
    ///
    /// ```swift
    /// func thumbnail(url: URL) async -> Thumbnail { await single(key: url) { await Thumbnail.load(url) } }
    /// ```
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached for the key.
    ///   - configure: Completes each key's instance right after `factory` returns.
    ///   - close: Closes each key's instance at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @_disfavoredOverload @inlinable public func single<T: Sendable, Key: Hashable, Failure: Error>(
        key: Key, _ factory: (()) async throws(Failure) -> T,
        configure: ((T, C) async throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) async throws(Failure) -> T {
        try await single(
            key: key, { _ async throws(Failure) in try await factory(()) }, configure: configure,
            close: close, id: id, isolation: isolation, file: file, line: line, column: column,
            function: function)
    }

    /// Provides a new instance on every call, from an async factory that needs no component.
    ///
    /// ```swift
    /// func draft() async -> Draft { await transient { await Draft.load() } }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: A new instance.
    @_disfavoredOverload @inlinable public func transient<T, Failure: Error>(
        _ factory: (()) async throws(Failure) -> T, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) async throws(Failure) -> T {
        try await resolveAsync(
            .asyncTransient, ProviderSite(id, file, line, column, function),
            make: { _ async throws(Failure) in try await factory(()) })
    }

    /// Provides a new instance on every call, from an async factory that receives the component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's providers.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: A new instance.
    @inlinable public func transient<T, Failure: Error>(
        _ factory: (C) async throws(Failure) -> T, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) async throws(Failure) -> T {
        try await resolveAsync(.asyncTransient, ProviderSite(id, file, line, column, function), make: factory)
    }

    /// Provides one instance per async resolution, from a factory that awaits: every request made
    /// while one outermost async provider call runs, in its task and the child tasks it starts,
    /// gets the same instance. Those child tasks may run at once, so `T` must be `Sendable`.
    ///
    /// ```swift
    /// func unitOfWork() async -> UnitOfWork { await scoped { c in await UnitOfWork.begin(c.data.store()) } }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's providers. If it throws, nothing is
    ///     kept.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (C) async throws(Failure) -> T, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) async throws(Failure) -> T {
        try await resolveAsync(.asyncScoped, ProviderSite(id, file, line, column, function), make: factory)
    }

    /// Provides one instance per async resolution, from a factory that awaits and needs no
    /// component. See the async `scoped` that receives the component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. If it throws, nothing is kept.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - isolation: Where the factory runs: the caller's actor, or none; leave the default.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @_disfavoredOverload @inlinable public func scoped<T: Sendable, Failure: Error>(
        _ factory: (()) async throws(Failure) -> T, id: ProviderID? = nil,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) async throws(Failure) -> T {
        try await resolveAsync(
            .asyncScoped, ProviderSite(id, file, line, column, function),
            make: { _ async throws(Failure) in try await factory(()) })
    }
}

extension ModuleBase {
    /// An async `single`'s cached instance, read as a synchronous `single`'s is (under its cell's
    /// lock, without a suspension), or the one the async pipeline builds.
    ///
    /// A ready instance needs nothing of the async resolution: no build to wait for, no cycle, no
    /// scope. So a hit neither joins the task's resolution nor suspends. (A caller on an actor
    /// still leaves it for the call, as for any nonisolated async function.) A module that someone
    /// watches takes the pipeline.
    @inlinable @inline(__always) func readyOrBuiltAsync<T, Failure: Error>(
        _ site: ProviderSite, make: (C) async throws(Failure) -> T,
        configure: ((T, C) async throws(Failure) -> Void)?, closing: Closing<T>?,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(Failure) -> T {
        let key = cellKey(ProviderKey(site: site, type: T.self))
        if let object = storage.readyObject(for: key, strategy: .asyncSingle) {
            return Erasure.value(of: object, as: T.self)
        }
        // As a synchronous `single`'s slow path, it makes the key again from the site.
        return try await resolveAsync(.asyncSingle, site, make: make, configure: configure, closing: closing)
    }

    /// An async provider's value through the async pipeline: the value travels as an object when
    /// it is cached, and is handed back directly when it is not.
    @inlinable @inline(never) func resolveAsync<T, Failure: Error>(
        _ strategy: ProviderStrategy, _ site: ProviderSite, keyValue: AnyHashable? = nil,
        make: (C) async throws(Failure) -> T, configure: ((T, C) async throws(Failure) -> Void)? = nil,
        closing: Closing<T>? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(Failure) -> T {
        let key = ProviderKey(site: site, type: T.self)
        var value: T?
        do {
            // Whether a caller can receive `CancellationError` is decided here, where the
            // provider's error type is known: the pipeline below erases it.
            // Not `configure.map`: Swift 6.0 and 6.2 crash on a closure made inside that generic closure.
            var erased: ((AnyObject, Component) async throws -> Void)?
            if let configure {
                erased = {
                    try await configure(Erasure.value(of: $0, as: T.self), Erasure.component($1, as: C.self))
                }
            }
            let object = try await asyncPipeline(
                strategy, key: key, keyValue: keyValue, site: site, type: T.self,
                cancellable: CancellationError() is Failure, configure: erased
            ) { component, isFresh in
                // An override's close action instead, if an override builds.
                let built = try await withoutActuallyEscaping(make) { make in
                    try await Self.make(
                        Handed(make), of: Handed(self), key: key, keyValue: Handed(keyValue),
                        strategy: strategy, component: component, closing: closing)
                }
                let made = built.value.value
                let closing = built.closing
                // Recorded before the cell publishes the instance, so that a shutdown that waits
                // for the build finds the action. A fresh instance is its caller's to close.
                if !isFresh, let closing { addCloseAction(site: site, type: T.self, closing(made)) }
                guard strategy == .asyncTransient else { return Erasure.object(of: made) }
                value = made
                return self  // a placeholder: the value travels in `value`
            }
            return value ?? Erasure.value(of: object, as: T.self)
        } catch { throw factoryError(error, as: Failure.self, site: site) }
    }
}
