extension Module {
    /// Provides one instance per component, built on the first call by a factory that needs no
    /// component and returned by every later call.
    ///
    /// ```swift
    /// func store() -> Store { single { Store() } }
    /// ```
    ///
    /// **Lifetime:** until the component is released or ``Component/reset(file:line:)``.
    ///
    /// **Thread safety:** when many threads make the first call at once, one builds and the others
    /// wait for that one instance. A cached instance is read under the component's lock, held
    /// for a few instructions. Every caller, on any thread, gets that one instance, so `T` must be
    /// `Sendable`; a non-`Sendable` object belongs in a ``MainActorModule``'s `single` or in a
    /// `transient`. See <doc:ProviderStrategies#Sendable-instances>.
    ///
    /// **Setter injection:** `configure` runs once per new instance, after it is cached, and may
    /// give it the instances that need it in turn. One that cannot throw waits, inside another
    /// provider's factory, until the factories under way on the thread return, so that a cycle
    /// through it resolves from whichever of its providers is asked first; one that can throw runs at
    /// once (<doc:ProviderStrategies#Setter-injection-and-cycles-the-configure-closure>):
    ///
    /// ```swift
    /// func parent() -> Parent { single { Parent() } configure: { parent, c in parent.child = c.family.child() } }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance. If it throws, nothing is cached, the error reaches the
    ///     caller and every caller waiting for the same build, and the next call tries again.
    ///   - configure: Completes the instance, once it is cached and before the outermost provider
    ///     call returns. If it throws, nothing is cached. Leave it out for an instance complete
    ///     when built.
    ///   - close: Closes the instance at ``Component/shutdown(file:line:)``, after the instances
    ///     built after it. Leave it out for an instance that needs no closing.
    ///   - id: The provider's identity, for a helper that calls the strategy for its provider
    ///     (see ``ProviderID``); leave it out in a provider.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out, and names it in messages; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @_disfavoredOverload @inlinable public func single<T: Sendable, Failure: Error>(
        _ factory: (()) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try readyOrBuilt(
            id, file, line, column, function, make: { _ throws(Failure) in try factory(()) },
            configure: configure, closing: Self.closing(close))
    }

    /// Provides one instance per component, built by a factory that receives the component.
    ///
    /// ```swift
    /// func repository() -> Repository { single { c in Repository(store: c.data.store()) } }
    /// ```
    ///
    /// Everything said of the `single` whose factory needs no component holds.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - configure: Completes the instance once it is cached; see the first `single`.
    ///   - close: Closes the instance at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable public func single<T: Sendable, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        close: (@Sendable (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try readyOrBuilt(
            id, file, line, column, function, make: factory, configure: configure,
            closing: Self.closing(close))
    }
}

extension ModuleBase {
    /// A `single`'s instance: the ready one, read under its component's lock without entering the
    /// pipeline, or else the one the pipeline builds. Only the read is inlined into the provider.
    @inlinable @inline(__always)
    func readyOrBuilt<T, Failure: Error>(
        _ id: ProviderID?, _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString,
        make: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)?, closing: Closing<T>?
    ) throws(Failure) -> T {
        let key =
            id.map { ProviderKey(site: $0.site, type: T.self) }
            ?? ProviderKey(file: file, line: line, column: column, function: function, type: T.self)
        if let object = storage.readyObject(for: cellKey(key), strategy: .single) {
            return Erasure.value(of: object, as: T.self)
        }
        return try resolveInCell(
            .single, ProviderSite(id, file, line, column, function), make: make, configure: configure,
            closing: closing)
    }

    /// The instance of a provider through the pipeline, which holds it as an object: `erase` makes
    /// it one, and `restore` undoes that. The pipeline keeps it in the provider's cell (`single`,
    /// `single(key:)` for `keyValue`, `weak` and `scoped`), or in none (a fresh instance, and a
    /// `transient`'s while its component's attention word is set). An error that is not `Failure`
    /// stops the program.
    ///
    /// Out of line, so that a provider stays small. `keyValue` gives the key where it is read, so that a
    /// provider that has none holds no `AnyHashable?`: a resilient type, whose value, even nil,
    /// is destroyed through the runtime (about 60 instructions per call).
    @inlinable @inline(never) func resolveInCell<T, Failure: Error>(
        _ strategy: ProviderStrategy, _ site: ProviderSite, keyValue: () -> AnyHashable? = { nil },
        make: (C) throws(Failure) -> T, configure: ((T, C) throws(Failure) -> Void)? = nil,
        erase: (T) -> AnyObject = Erasure.object(of:),
        restore: @escaping (AnyObject) -> T = { Erasure.value(of: $0, as: T.self) },
        closing: Closing<T>? = nil
    ) throws(Failure) -> T {
        let key = ProviderKey(site: site, type: T.self)
        // `configure`, for the pipeline, which holds its instance as an object; made here, as the
        // async pipeline's is, so that a build with none calls nothing. Not `configure.map`: Swift 6.0
        // and 6.2 crash on a closure made inside that generic closure.
        var erased: ((AnyObject, Component) throws -> Void)?
        if let configure { erased = { try configure(restore($0), Erasure.component($1, as: C.self)) } }
        do {
            let object = try pipeline(
                strategy, keyValue: keyValue, key: key, site: site, type: T.self,
                build: { component, isFresh in
                    // A close action is recorded as soon as the instance exists, before its cell
                    // publishes it, so that a shutdown that waits for the build finds it; a `fresh`
                    // copy is its caller's to close. An override's close action instead, if an
                    // override builds.
                    let (value, closing) = try self.make(
                        make, key: key, keyValue: keyValue(), strategy: strategy, component: component,
                        closing: closing)
                    if !isFresh, let closing { addCloseAction(site: site, type: T.self, closing(value)) }
                    return erase(value)
                },
                configure: erased, configureMayWait: Failure.self == Never.self)
            return restore(object!)
        } catch { throw factoryError(error, as: Failure.self, site: site) }
    }

    /// The close action of a `Sendable` instance, from the provider's `close:` parameter.
    @inlinable static func closing<T: Sendable>(_ close: (@Sendable (T) async throws -> Void)?) -> Closing<T>?
    {
        close.map { close -> Closing<T> in { value in { try await close(value) } } }
    }

    /// The error that a provider's factory threw, as the type the factory declares; stops the
    /// program, naming the provider at `site`, if an override's factory threw another type.
    ///
    /// One call for every strategy, so that no provider carries the message's code. (Speed only.)
    @inlinable @inline(never) func factoryError<Failure: Error>(
        _ error: any Error, as type: Failure.Type, site: ProviderSite
    ) -> Failure {
        // The step as far as the message names it: the strategy and the return type are left out.
        Diagnostics.providerError(
            error, as: Failure.self, step: providerStep(.none, site: site, returning: Never.self),
            overrides: overrideLocations(ofProviderAt: site))
    }
}

/// How a provider closes the instance it built: the instance's close action, made from it.
@usableFromInline typealias Closing<T> = @Sendable (T) -> @Sendable () async throws -> Void
