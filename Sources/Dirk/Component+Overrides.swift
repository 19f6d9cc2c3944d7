extension _ModuleOwner where Self: Component {
    /// Replaces the factory of the one provider that `provider` calls, for this component and the
    /// children that reach it through their parents: the way to put a test's fake behind one
    /// provider without writing a module subclass.
    ///
    /// ```swift
    /// let app = AppComponent().overriding { $0.network.api() } with: { FakeAPI() }
    /// let fake = app.network.api() as? FakeAPI
    /// ```
    ///
    /// `factory` is `@Sendable`, since any thread may build the provider: build the fake in it, as
    /// above, and get it back from the provider, or capture a fake that is `Sendable`. It may take
    /// the component, `with: { c in FakeAPI(store: c.data.store()) }`, and for a `single(key:)`
    /// provider the key too, `with: { c, id in FakeUser(id: id) }`.
    ///
    /// The provider keeps its strategy: an overridden `single` is still built once per
    /// component, by `factory`, and a `transient` calls `factory` every time. To find the
    /// provider, Dirk calls `provider` once, right away, and resolves it through `factory`; for a
    /// `single` that is its first and only build. A `single(key:)` override serves every key,
    /// whichever key `provider` passes.
    ///
    /// The provider's `close:` action never runs on what `factory` builds, since a fake has nothing
    /// of the real instance to close: ``Component/shutdown(file:line:)`` leaves it alone. To close
    /// it, pass `close`.
    ///
    /// `factory` makes the type that the provider's strategy builds. To override a provider that
    /// returns a protocol with another implementation, build the protocol in the provider:
    /// `func api() -> any API { single { LiveAPI() as any API } }`, not `single { LiveAPI() }`,
    /// whose strategy builds a `LiveAPI`.
    ///
    /// An async provider is overridden the same way, with closures that await. A main-actor
    /// provider's fake is built inside `MainActor.assumeIsolated`, since the factory runs where the
    /// provider is called, on the main actor (see <doc:MainActor#Overriding-main-actor-providers>).
    ///
    /// Like ``module(_:file:line:)`` and ``parent(_:as:file:line:)``, it configures the component it is
    /// called on and returns it: override providers when you build the component, before its first
    /// resolution. Overriding a provider that was already used, a provider of another component (a
    /// parent's), a provider whose strategy builds another type than `T`, or a closure that calls no
    /// provider or more than one stops the program with a message.
    ///
    /// - Parameters:
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on. It may throw only errors that the
    ///     provider itself can throw.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T>(
        _ provider: (Self) throws -> T, with factory: @escaping @Sendable () throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Self { overriding(provider, with: { _ in try factory() }, file: file, line: line) }

    /// Replaces the factory of the one provider that `provider` calls with one that receives the
    /// component. See ``overriding(_:with:file:line:)-(_,()->T,_,_)``.
    ///
    /// - Parameters:
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on, from the component.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T>(
        _ provider: (Self) throws -> T, with factory: @escaping @Sendable (Self) throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Self { override(provider, with: { c, _ in try factory(c) }, file: file, line: line) }

    /// Replaces the factory of the `single(key:)` provider that `provider` calls, for every key,
    /// with one that receives the component and the key. See the first `overriding(_:with:)`.
    ///
    /// ```swift
    /// let app = AppComponent().overriding { $0.users.user(id: 1) } with: { _, id in FakeUser(id: id) }
    /// ```
    ///
    /// - Parameters:
    ///   - provider: Calls the one `single(key:)` provider to override, with any key.
    ///   - factory: Builds the instance of each key from now on.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T, Key: Hashable & Sendable>(
        _ provider: (Self) throws -> T, with factory: @escaping @Sendable (Self, Key) throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        override(
            provider, with: { try factory($0, Self.key($1, for: T.self, at: (file, line))) },
            keyType: Key.self, file: file, line: line)
    }

    /// Replaces the factory of the async `single(key:)` provider that `provider` calls, for every
    /// key, with one that may await and receives the component and the key. See the async
    /// `overriding(_:with:)`.
    ///
    /// ```swift
    /// let app = await AppComponent().overriding { try await $0.users.profile(id: "a") } with: { _, id in
    ///     FakeProfile(id: id)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - provider: Calls the one async `single(key:)` provider to override, with any key.
    ///   - factory: Builds the instance of each key from now on.
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T, Key: Hashable & Sendable>(
        _ provider: (Self) async throws -> T, with factory: @escaping @Sendable (Self, Key) async throws -> T,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID, line: UInt = #line
    ) async -> Self {
        await override(
            provider, with: { try await factory($0, Self.key($1, for: T.self, at: (file, line))) },
            keyType: Key.self, isolation: isolation, file: file, line: line)
    }

    /// The key that a `single(key:)` provider of a `T` passed to an override's factory, as the `Key`
    /// that factory takes; stops the program if the provider passed a key of another type, which its
    /// generic key type allows.
    private static func key<Key, T>(_ key: AnyHashable?, for type: T.Type, at call: Diagnostics.Call) -> Key {
        if let key = key?.base as? Key { return key }
        Diagnostics.overrideKeyOfAnotherType(
            "\(T.self) provider", key: key, expected: Key.self, component: Self.self, at: call)
    }

    /// Replaces the factory of the one provider that `provider` calls, and closes what the new
    /// factory builds with `close` at shutdown: the override of a provider whose fake holds
    /// something to release, such as a temporary database.
    ///
    /// ```swift
    /// let app = AppComponent().overriding { $0.storage.database() } with: { _ in
    ///     FakeDatabase()
    /// } close: {
    ///     await $0.close()
    /// }
    /// ```
    ///
    /// Everything said of the first `overriding(_:with:)` holds; in addition,
    /// ``Component/shutdown(file:line:)`` runs `close` once for each instance `factory` built for
    /// the component to keep: the one instance of a `single`, each key's of a `single(key:)`, in the
    /// reverse order of the builds, as it runs every close action. The provider's own `close:`
    /// never runs on them. The component keeps nothing else until shutdown: `close` never runs for a
    /// `transient`, `weak` or `scoped` provider's instances, nor for a `fresh` copy.
    ///
    /// - Parameters:
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on, from the component.
    ///   - close: Closes each instance `factory` built, at ``Component/shutdown(file:line:)``.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T: Sendable>(
        _ provider: (Self) throws -> T, with factory: @escaping @Sendable (Self) throws -> T,
        close: @escaping @Sendable (T) async throws -> Void, file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        override(
            provider, with: { c, _ in try factory(c) }, closing: ModuleBase<Self>.closing(close), file: file,
            line: line)
    }

    /// Replaces the factory of the one provider that `provider` calls with one that needs no
    /// component, and closes what it builds with `close` at shutdown. See
    /// `overriding(_:with:close:)`.
    ///
    /// - Parameters:
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on.
    ///   - close: Closes each instance `factory` built, at ``Component/shutdown(file:line:)``.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T: Sendable>(
        _ provider: (Self) throws -> T, with factory: @escaping @Sendable () throws -> T,
        close: @escaping @Sendable (T) async throws -> Void, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { overriding(provider, with: { _ in try factory() }, close: close, file: file, line: line) }

    /// Replaces the factory of the one async provider that `provider` calls with one that may
    /// await: the first `overriding(_:with:)` for providers that await.
    ///
    /// ```swift
    /// let app = await AppComponent().overriding { await $0.data.database() } with: {
    ///     await InMemoryDatabase.empty()
    /// }
    /// ```
    ///
    /// Everything said of the synchronous form holds. A synchronous provider, which cannot await a
    /// factory, stops the program with a message: override it with the synchronous form, whose
    /// factory does not await.
    ///
    /// - Parameters:
    ///   - provider: Calls the one async provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on.
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T>(
        _ provider: (Self) async throws -> T, with factory: @escaping @Sendable () async throws -> T,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID, line: UInt = #line
    ) async -> Self {
        await overriding(
            provider, with: { _ in try await factory() }, isolation: isolation, file: file, line: line)
    }

    /// Replaces the factory of the one async provider that `provider` calls with one that may
    /// await and receives the component. See the async `overriding(_:with:)`.
    ///
    /// - Parameters:
    ///   - provider: Calls the one async provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on, from the component.
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T>(
        _ provider: (Self) async throws -> T, with factory: @escaping @Sendable (Self) async throws -> T,
        isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID, line: UInt = #line
    ) async -> Self {
        await override(
            provider, with: { c, _ in try await factory(c) }, isolation: isolation, file: file, line: line)
    }

    /// Replaces the factory of the one async provider that `provider` calls with one that may
    /// await, and closes what it builds with `close` at shutdown: the synchronous
    /// `overriding(_:with:close:)` for providers that await.
    ///
    /// ```swift
    /// let app = await AppComponent().overriding { await $0.data.database() } with: { _ in
    ///     await InMemoryDatabase.empty()
    /// } close: {
    ///     await $0.close()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - provider: Calls the one async provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on.
    ///   - close: Closes each instance `factory` built, at ``Component/shutdown(file:line:)``.
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T: Sendable>(
        _ provider: (Self) async throws -> T, with factory: @escaping @Sendable (Self) async throws -> T,
        close: @escaping @Sendable (T) async throws -> Void, isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line
    ) async -> Self {
        await override(
            provider, with: { c, _ in try await factory(c) }, closing: ModuleBase<Self>.closing(close),
            isolation: isolation, file: file, line: line)
    }

    /// Replaces the factory of the one async provider that `provider` calls with one that may
    /// await and needs no component, and closes what it builds with `close` at shutdown. See the
    /// async `overriding(_:with:close:)`.
    ///
    /// - Parameters:
    ///   - provider: Calls the one async provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on.
    ///   - close: Closes each instance `factory` built, at ``Component/shutdown(file:line:)``.
    ///   - isolation: The actor that `provider` runs on; leave the default, the caller's.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func overriding<T: Sendable>(
        _ provider: (Self) async throws -> T, with factory: @escaping @Sendable () async throws -> T,
        close: @escaping @Sendable (T) async throws -> Void, isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID, line: UInt = #line
    ) async -> Self {
        await overriding(
            provider, with: { _ in try await factory() }, close: close, isolation: isolation, file: file,
            line: line)
    }

    /// Sets up the override of the provider that `provider` calls: `overriding(_:with:)`.
    private func override<T>(
        _ provider: (Self) throws -> T, with build: @escaping @Sendable (Self, AnyHashable?) throws -> T,
        keyType: Any.Type? = nil, closing: Closing<T>? = nil, file: StaticString, line: UInt
    ) -> Self {
        let factory = OverrideFactory<T, SyncOverride<T>>(closing: closing) { try build($0 as! Self, $1) }
        // Only this component's providers are overridden, so the component is `self`.
        let capture = OverrideCapture(
            component: identity, componentType: type(of: self), call: (file, line), valueType: T.self,
            keyType: keyType, isAsync: false, factory: factory)
        // Sends the provider calls of this component and its ancestors down the path that sees the
        // capture, cached ones included, so that an override of a provider already used, or of an
        // ancestor's provider, is caught.
        let components = selfAndAncestors()
        Component.addObservers(1, to: components)
        OverrideCapture.$bound.withValue(capture) { _ = try? provider(self) }
        Component.addObservers(-1, to: components)
        capture.finish()
        return self
    }

    /// Sets up the override of the async provider that `provider` calls: the async
    /// `overriding(_:with:)`.
    private func override<T>(
        _ provider: (Self) async throws -> T,
        with build: @escaping @Sendable (Self, AnyHashable?) async throws -> T, keyType: Any.Type? = nil,
        closing: Closing<T>? = nil, isolation: isolated (any Actor)?, file: StaticString, line: UInt
    ) async -> Self {
        let factory = OverrideFactory<T, AsyncOverride<T>>(closing: closing) {
            try await build($0 as! Self, $1)
        }
        // Only this component's providers are overridden, so the component is `self`.
        let capture = OverrideCapture(
            component: identity, componentType: type(of: self), call: (file, line), valueType: T.self,
            keyType: keyType, isAsync: true, factory: factory)
        // The capture travels with the task, since the closure may resume on any thread, as in the
        // synchronous form.
        let components = selfAndAncestors()
        Component.addObservers(1, to: components)
        await OverrideCapture.$bound.withValue(capture) { _ = try? await provider(self) }
        Component.addObservers(-1, to: components)
        capture.finish()
        return self
    }
}

/// A factory that replaces a provider's, as `Component.overriding(_:with:)` stores it, with the
/// override's close action. `Make` is the factory's type: `SyncOverride<Value>` or
/// `AsyncOverride<Value>`, by which a provider finds only a factory of its own kind and type.
@usableFromInline final class OverrideFactory<Value, Make: Sendable>: Sendable {
    @usableFromInline let make: Make
    /// The override's own close action for each instance `make` builds, if it has one.
    private let closing: Closing<Value>?

    init(closing: Closing<Value>?, _ make: Make) {
        self.closing = closing
        self.make = make
    }

    /// The close action of an instance that `make` built for a provider of `strategy`: the
    /// override's own, for the strategies whose component keeps the instance until shutdown (those
    /// with a `close:` parameter), and otherwise none; never the provider's.
    @usableFromInline func closing(for strategy: ProviderStrategy) -> Closing<Value>? {
        strategy.closes ? closing : nil
    }
}

/// The factory of a synchronous provider's override, which makes a `T` from the component and, for a
/// `single(key:)` provider, the key.
@usableFromInline typealias SyncOverride<T> = @Sendable (Component, AnyHashable?) throws -> T

/// The factory of an async provider's override, which makes a `T` from the component.
@usableFromInline typealias AsyncOverride<T> = @Sendable (Component, AnyHashable?) async throws -> T

extension ModuleBase {
    /// What the factory that replaces the provider at `key`, a provider of `strategy`, makes, if one
    /// does, or else what `factory` makes, with the close action of what it made: an override's
    /// instance takes the override's close action, if any, instead of the provider's `closing`.
    /// Checked when the provider builds, so that an override set up after the provider's cell was
    /// made still applies.
    @inlinable @inline(__always) func make<T, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, key: @autoclosure () -> ProviderKey,
        keyValue: @autoclosure () -> AnyHashable? = nil,
        strategy: ProviderStrategy, component: Component, closing: Closing<T>? = nil
    ) throws -> (value: T, closing: Closing<T>?) {
        if let override: OverrideFactory<T, SyncOverride<T>> = override(at: key(), strategy: strategy) {
            return (try override.make(component, keyValue()), override.closing(for: strategy))
        }
        return (try factory(Erasure.component(component, as: C.self)), closing)
    }

    /// The async form of `make(_:key:strategy:component:closing:)`, for the async strategies: called
    /// outside the caller's isolation, with `factory`, the module and the key handed over, and what it
    /// made handed back (see `Handed`).
    @inlinable static func make<T, Failure: Error>(
        _ factory: Handed<(C) async throws(Failure) -> T>, of module: Handed<ModuleBase>, key: ProviderKey,
        keyValue: Handed<AnyHashable?>, strategy: ProviderStrategy, component: Component, closing: Closing<T>?
    ) async throws -> (value: Handed<T>, closing: Closing<T>?) {
        let override: OverrideFactory<T, AsyncOverride<T>>? = module.value.override(
            at: key, strategy: strategy)
        if let override {
            let made = try await override.make(component, keyValue.value)
            return (Handed(made), override.closing(for: strategy))
        }
        return (Handed(try await factory.value(Erasure.component(component, as: C.self))), closing)
    }

    /// The factory that replaces the provider at `key`, a provider of `strategy`, if one does and it
    /// is a `Factory`: an override of the provider's kind, sync or async, and type. Looked up only
    /// when the module has overrides, and `key` made only then: a `transient` makes its key for
    /// nothing else.
    ///
    /// The factory is unwrapped before the cast: cast as an optional, straight to the generic type,
    /// Swift 6.3's optimizer handed a nil to the runtime's class cast in a release build, which
    /// crashed (the model test's seed 1).
    @inlinable @inline(__always)
    func override<Factory: AnyObject>(
        at key: @autoclosure () -> ProviderKey, strategy: ProviderStrategy
    ) -> Factory? {
        guard storage.flags & ComponentStorage.hasOverrides != 0,
            let factory = storage.override(for: cellKey(key()), strategy: strategy)
        else { return nil }
        return factory as? Factory
    }
}

extension AnyModule {
    /// Where the overrides of the provider at `site` were set up, one for each type it was
    /// overridden for, for messages; empty if it is not overridden.
    @usableFromInline func overrideLocations(ofProviderAt site: ProviderSite) -> [String] {
        let key = ProviderKey(site: site, type: Never.self)
        let overrides = storage.withLock { $0.extras?.overrides ?? [:] }
        return overrides.filter { $0.key.owner == ObjectIdentifier(self) && $0.key.provider.hasSite(of: key) }
            .map(\.value.location).sorted()
    }

    /// Makes the provider at `key`, the first that an override's closure calls, build through the
    /// override's factory from now on; stops the program if it cannot.
    ///
    /// Called before the provider's cell is looked for: the factory is set under the component's
    /// lock, in the critical section that finds the provider without a cell, which is the one in
    /// which a call could make its cell. A call on another thread that makes the cell later builds
    /// through the factory; one that made it before makes this a late override. (Set after the cell
    /// was made, it would leave a moment in which another thread finds the cell and builds the
    /// original, which would stay cached.)
    func setUpOverride(_ capture: OverrideCapture, key: ProviderKey, keyValue: AnyHashable?, step: Step) {
        // The overriding component and where `overriding(_:with:)` was called, for messages, and the
        // type its factory makes.
        let overriding = capture.componentType
        let call = capture.call
        let valueType = capture.valueType
        if let first = capture.capture(step.name) {
            Diagnostics.overrideCalledSeveralProviders(first, step.name, component: overriding, at: call)
        }
        guard storage.address == capture.component else {
            Diagnostics.overrideOfAnotherComponent(step, component: overriding, at: call)
        }
        guard step.type == valueType else {
            Diagnostics.overrideOfAnotherType(step, returns: valueType, component: overriding, at: call)
        }
        if let keyType = capture.keyType, keyValue.map({ type(of: $0.base) != keyType }) ?? true {
            Diagnostics.overrideKeyOfAnotherType(
                step.name, key: keyValue, expected: keyType, component: overriding, at: call)
        }
        // (The synchronous form's closure cannot call an async provider.)
        if capture.isAsync && !step.strategy.isAsync {
            Diagnostics.asyncOverrideOfSynchronousProvider(step.name, component: overriding, at: call)
        }
        // The strategy of the cell or override already at the key, if any.
        let other = storage.withLock { state -> ProviderStrategy? in
            let cell = cellKey(key)
            // A cell means the provider was used; a transient, which keeps none, is never used, and
            // overriding it again replaces its override.
            if let used = state.table.strategy(at: cell) { return used }
            if let set = state.extras?.overrides[cell], step.strategy.buildsInCell { return set.strategy }
            state.withExtras { $0.overrides[cell] = (capture.factory, step.strategy, capture.location) }
            storage.setFlags(ComponentStorage.hasOverrides)
            return nil
        }
        if let other {
            // A cell or an override of another strategy at the key is another provider's, which only
            // generated code can place there.
            if other != step.strategy { Diagnostics.providerClash(step, first: other) }
            Diagnostics.lateOverride(step.name, component: overriding, at: call)
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

/// A factory that replaces a provider's, the strategy of the provider it was set up for, and where
/// it was set up: the file and line of the `overriding(_:with:)` call,
/// `AppTests/StoreTests.swift:12`.
typealias OverrideEntry = (factory: AnyObject, strategy: ProviderStrategy, location: String)
