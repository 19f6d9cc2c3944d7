extension Component {
    /// Replaces the factory of the one provider that `provider` calls, for this component and the
    /// children that reach it through their parents: the way to put a test's fake behind one
    /// provider without writing a module subclass.
    ///
    /// ```swift
    /// let app = AppComponent().overriding { $0.network.api() } with: { _ in FakeAPI() }
    /// let fake = app.network.api() as? FakeAPI
    /// ```
    ///
    /// `factory` is `@Sendable`, since any thread may build the provider: build the fake in it, as
    /// above, and get it back from the provider, or capture a fake that is `Sendable`.
    ///
    /// The provider keeps its strategy: an overridden `single` is still built once per
    /// component, by `factory`, and a `transient` calls `factory` every time. To find the
    /// provider, Dirk calls `provider` once, right away, and resolves it through `factory`; for a
    /// `single` that is its first and only build. A `single(key:)` override serves every key.
    ///
    /// `factory` makes the type that the provider's strategy builds. To override a provider that
    /// returns a protocol with another implementation, build the protocol in the provider:
    /// `func api() -> any API { single { LiveAPI() as any API } }`, not `single { LiveAPI() }`,
    /// whose strategy builds a `LiveAPI`.
    ///
    /// An async provider is overridden with the async form of this method,
    /// ``overriding(file:line:_:with:)-2ij78``, whose closures may await. A main-actor provider's
    /// fake is built inside `MainActor.assumeIsolated`, since the factory runs where the provider
    /// is called, on the main actor (see <doc:MainActor#Overriding-main-actor-providers>).
    ///
    /// Override providers when you build the component, before its first resolution. Overriding
    /// a provider that was already used, a provider of another component (a parent's), a provider
    /// whose strategy builds another type than `T`, or a closure that calls no provider or more
    /// than one stops the program with a message.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on. It may throw only errors that the
    ///     provider itself can throw.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func overriding<T>(
        file: StaticString = #fileID, line: UInt = #line,
        _ provider: (Self) throws -> T,
        with factory: @escaping @Sendable (Self) throws -> T
    ) -> Self {
        let capture = OverrideCapture(
            of: self, file: file, line: line, valueType: T.self, isAsync: false,
            factory: OverrideFactory<SyncOverride<T>>(file: file, line: line) { component in
                // Only this component's providers are overridden, so `component` is `self`.
                try factory(component as! Self)
            })
        let context = ResolutionContext.current
        let outer = context.capture
        context.capture = capture
        // Sends the provider calls of this component and its ancestors down the path that sees the
        // capture, cached ones included, so that an override of a provider already used, or of an
        // ancestor's provider, is caught.
        Component.observing(selfAndAncestors()) { _ = try? provider(self) }
        context.capture = outer
        capture.finish()
        return self
    }

    /// Replaces the factory of the one async provider that `provider` calls, for this component
    /// and the children that reach it through their parents: ``overriding(file:line:_:with:)-215rn``
    /// for providers that await.
    ///
    /// ```swift
    /// let app = await AppComponent().overriding { await $0.data.database() } with: { _ in
    ///     await InMemoryDatabase.empty()
    /// }
    /// ```
    ///
    /// Everything said of the synchronous form holds: the provider keeps its strategy, Dirk calls
    /// `provider` once, right away, and resolves it through `factory`, and the factory may throw
    /// only what the provider can throw. A synchronous provider, which cannot await a factory,
    /// stops the program with a message: override it with the synchronous form, whose factory
    /// does not await.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - provider: Calls the one async provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on.
    /// - Returns: This component, for chaining.
    @discardableResult
    nonisolated(nonsending) public consuming func overriding<T>(
        file: StaticString = #fileID, line: UInt = #line,
        _ provider: (Self) async throws -> T,
        with factory: @escaping @Sendable (Self) async throws -> T
    ) async -> Self {
        let capture = OverrideCapture(
            of: self, file: file, line: line, valueType: T.self, isAsync: true,
            factory: OverrideFactory<AsyncOverride<T>>(file: file, line: line) { component in
                // Only this component's providers are overridden, so `component` is `self`.
                try await factory(component as! Self)
            })
        // The capture travels with the task, since the closure may resume on any thread; the
        // calls are sent down the path that sees it, as in the synchronous form.
        await OverrideCapture.$inTask.withValue(capture) {
            await Component.observingAwaiting(selfAndAncestors()) { _ = try? await provider(self) }
        }
        capture.finish()
        return self
    }
}

/// A factory that replaces a provider's, as `Component.overriding(_:with:)` stores it, with
/// where that call is. `Make` is the factory's type: `SyncOverride<T>` or `AsyncOverride<T>`, by
/// which a provider finds only a factory of its own kind and type.
@usableFromInline
final class OverrideFactory<Make: Sendable>: OverrideOrigin, Sendable {
    @usableFromInline let make: Make
    let file: StaticString
    let line: UInt

    init(file: StaticString, line: UInt, _ make: Make) {
        self.file = file
        self.line = line
        self.make = make
    }

    var location: String { "\(file):\(line)" }
}

/// The factory of a synchronous provider's override, which makes a `T`.
@usableFromInline typealias SyncOverride<T> = @Sendable (Component) throws -> T

/// The factory of an async provider's override, which makes a `T`.
@usableFromInline typealias AsyncOverride<T> = @Sendable (Component) async throws -> T

/// Where an override was set up, whatever type its factory makes.
protocol OverrideOrigin: AnyObject {
    /// The file and line of the `overriding(_:with:)` call: `AppTests/StoreTests.swift:12`.
    var location: String { get }
}

extension AnyModule {
    /// Where the overrides of the provider at `site` were set up, one for each type it was
    /// overridden for, for messages; empty if it is not overridden.
    @usableFromInline func overrideLocations(ofProviderAt site: ProviderSite) -> [String] {
        let key = ProviderKey(site: site, type: Never.self)
        let overrides = storage.withLock { state in
            (state.extras?.overrides ?? [:]).filter {
                $0.key.owner == ObjectIdentifier(self) && $0.key.provider.hasSite(of: key)
            }
        }
        return overrides.values.compactMap { ($0.factory as? any OverrideOrigin)?.location }.sorted()
    }
}

extension Module {
    /// What the factory that replaces the provider at `key`, a provider of `strategy`, makes, if one
    /// does, or else what `factory` makes; checked when the provider builds, so that an override set
    /// up after the provider's slot was made still applies.
    ///
    /// `key` is made only when the module has overrides: a `transient` makes its key for nothing
    /// else.
    @inlinable @inline(__always)
    func make<T, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, key: @autoclosure () -> ProviderKey, strategy: ProviderStrategy,
        component: Component
    ) throws -> T {
        if storage.flags.relaxed & ComponentStorage.hasOverrides != 0,
            let override = storage.override(for: cellKey(key()), strategy: strategy)
                as? OverrideFactory<SyncOverride<T>>
        {
            return try override.make(component)
        }
        return try factory(Erasure.component(component, as: C.self))
    }

    /// The async form of `make(_:key:strategy:component:)`, for the async strategies.
    @inlinable @inline(__always)
    func make<T, Failure: Error>(
        _ factory: (C) async throws(Failure) -> T, key: ProviderKey, strategy: ProviderStrategy,
        component: Component
    ) async throws -> T {
        if storage.flags.relaxed & ComponentStorage.hasOverrides != 0,
            let override = storage.override(for: cellKey(key), strategy: strategy)
                as? OverrideFactory<AsyncOverride<T>>
        {
            return try await override.make(component)
        }
        return try await factory(Erasure.component(component, as: C.self))
    }
}

extension AnyModule {
    /// Makes the provider at `key`, the first that an override's closure calls, build through the
    /// override's factory from now on; stops the program if it cannot.
    ///
    /// Called before the provider's slot is found: the factory is set in the critical section of
    /// the module's slots that finds the provider unused, which is the one in which a call could
    /// make its slot. A call on another thread that makes the slot later builds through the
    /// factory; one that made it before makes this a late override. (Set after the slot was made,
    /// it would leave a moment in which another thread finds the slot and builds the original,
    /// which would stay cached.)
    func setUpOverride(_ capture: OverrideCapture, key: ProviderKey, frame: Frame) {
        if let first = capture.capture(frame.name) {
            Diagnostics.overrideCalledSeveralProviders(
                first, frame.name, component: capture.componentType, file: capture.file, line: capture.line)
        }
        guard storage.address == capture.component else {
            Diagnostics.overrideOfAnotherComponent(
                frame.name, owner: componentType, component: capture.componentType, file: capture.file,
                line: capture.line)
        }
        guard frame.type == capture.valueType else {
            Diagnostics.overrideOfAnotherType(
                frame.name, strategy: frame.strategy.name, builds: frame.type, returns: capture.valueType,
                component: capture.componentType, file: capture.file, line: capture.line)
        }
        // (The synchronous form's closure cannot call an async provider.)
        if capture.isAsync && !frame.strategy.isAsync {
            Diagnostics.asyncOverrideOfSynchronousProvider(
                frame.name, component: capture.componentType, file: capture.file, line: capture.line)
        }
        // A `transient` keeps nothing: overriding it again replaces its override.
        let replaces = frame.strategy == .transient || frame.strategy == .asyncTransient
        let other = storage.withLock { state -> ProviderStrategy?? in
            // A cell means the provider was used; a transient, which keeps none, is never used.
            if let strategy = state.table.strategy(at: cellKey(key)) { return strategy }
            if let set = state.extras?.overrides[cellKey(key)], !replaces { return set.strategy }
            state.withExtras {
                $0.overrides[cellKey(key)] = OverrideEntry(factory: capture.factory, strategy: frame.strategy)
            }
            storage.flags.set(ComponentStorage.hasOverrides)
            return nil
        }
        if let other {
            // A cell or an override of another strategy at the key is another provider's, which only
            // generated code can place there.
            if let other, other != frame.strategy { Diagnostics.providerClash(frame, first: other) }
            Diagnostics.lateOverride(
                frame.name, component: capture.componentType, file: capture.file, line: capture.line)
        }
    }
}

extension ComponentStorage {
    /// The factory that replaces the provider whose cell key is `key`, a provider of `strategy`, if
    /// one does. An override set up for a provider of another strategy at the same key, which only
    /// generated code can give two providers, is that provider's alone.
    @usableFromInline func override(for key: CellKey, strategy: ProviderStrategy) -> AnyObject? {
        withLock { $0.extras?.overrides[key].flatMap { $0.strategy == strategy ? $0.factory : nil } }
    }
}

/// A factory that replaces a provider's, and the strategy of the provider it was set up for.
struct OverrideEntry {
    let factory: AnyObject
    let strategy: ProviderStrategy
}
