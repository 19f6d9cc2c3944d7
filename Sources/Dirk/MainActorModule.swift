/// A module whose providers belong to the main actor: view models, coordinators, anything a
/// screen's UI holds.
///
/// Subclass it instead of ``Module`` for such modules; the subclass and its providers are
/// isolated to the main actor, so main-actor callers call them without `await`:
///
/// ```swift
/// final class ScreenModule: MainActorModule<ScreenComponent> {
///     func viewModel() -> ScreenViewModel { transient { c in ScreenViewModel(store: c.data.store()) } }
/// }
/// ```
///
/// Its `single` keeps an object of any type, `Sendable` or not, since the instance never leaves
/// the main actor: the home of a view model or any other non-`Sendable` object that a screen
/// shares.
///
/// Dirk creates a module on first use, through its accessor. The accessor of a main-actor module is
/// main-actor isolated (`@MainActor var screens: ScreenModule { module() }`, or any accessor in an
/// extension of the component in a target whose default isolation is the main actor), so the
/// compiler refuses one that could create it off the main actor. See <doc:MainActor>.
@MainActor open class MainActorModule<C: Component>: ModuleBase<C>, Sendable {
    /// Creates the module for `component`, on the main actor.
    ///
    /// - Parameter component: The component whose providers this module's factories receive.
    public required init(_ component: C) { super.init(for: component) }

    nonisolated override class var isMainActorModule: Bool { true }

    nonisolated override class var rootModuleType: AnyModule.Type { MainActorModule<C>.self }

    /// Creates the module on first use, on the main thread only.
    nonisolated override class func makeDefault(
        for component: Component, file: StaticString, line: UInt
    ) -> AnyModule {
        if !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleOffMainThread(self, component: type(of: component), at: (file, line))
        }
        return MainActor.assumeIsolated { self.init(owner(component, file: file, line: line)) }
    }
}

extension MainActorModule {
    /// Provides one instance per component, of any type, on the main actor, built by a factory
    /// that needs no component: the home of a non-`Sendable` object that the component keeps, since
    /// the instance never leaves the main actor. It behaves as ``Module``'s `single` does.
    ///
    /// ```swift
    /// final class ScreenModule: MainActorModule<ScreenComponent> {
    ///     func history() -> NavigationHistory { single { NavigationHistory() } }  // not Sendable
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance once it is cached. If it throws, nothing is cached.
    ///   - close: Closes the instance on the main actor at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider, with `line`, `column` and `function`, when `id` is left
    ///     out; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @_disfavoredOverload @inlinable public func single<T, Failure: Error>(
        _ factory: @MainActor (()) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil,
        close: (@MainActor (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try readyOrBuilt(
            id, file, line, column, function, make: { _ throws(Failure) in try factory(()) },
            configure: configure, closing: Self.closing(close))
    }

    /// Provides one instance per component, of any type, on the main actor, built by a factory that
    /// receives the component. See the first `single`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - configure: Completes the instance once it is cached. If it throws, nothing is cached.
    ///   - close: Closes the instance on the main actor at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable public func single<T, Failure: Error>(
        _ factory: @MainActor (C) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil,
        close: (@MainActor (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try readyOrBuilt(
            id, file, line, column, function, make: factory, configure: configure,
            closing: Self.closing(close))
    }

    /// Provides one instance per component per key, of any type, on the main actor, as
    /// ``Module``'s `single(key:)` does.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`.
    ///   - configure: Completes each key's instance once it is cached.
    ///   - close: Closes each key's instance on the main actor at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @inlinable public func single<T, Key: Hashable, Failure: Error>(
        key: Key, _ factory: @MainActor (C) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil,
        close: (@MainActor (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        // Made once: the pipeline reads it to find the key's cell, and again for a cycle's message.
        let keyValue = AnyHashable(key)
        return try resolveInCell(
            .keyedSingle, ProviderSite(id, file, line, column, function), keyValue: { keyValue },
            make: factory, configure: configure, closing: Self.closing(close))
    }

    /// Provides one instance per resolution, of any type, on the main actor, as ``Module``'s
    /// `scoped` does: the home of a main-actor protocol's instance that one resolution shares.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance once it is shared.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @inlinable public func scoped<T, Failure: Error>(
        _ factory: @MainActor (C) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .scoped, ProviderSite(id, file, line, column, function), make: factory, configure: configure)
    }

    /// Provides the same instance, of any class, on the main actor, for as long as anyone outside
    /// the component holds it, as ``Module``'s `weak` does.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance once it is cached.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @inlinable public func weak<T: AnyObject, Failure: Error>(
        _ factory: @MainActor (C) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveWeak(ProviderSite(id, file, line, column, function), make: factory, configure: configure)
    }

    /// Provides one instance per component per key, of any type, built by a factory that needs no
    /// component. See the `single(key:)` whose factory receives the component.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`.
    ///   - configure: Completes each key's instance once it is cached.
    ///   - close: Closes each key's instance on the main actor at ``Component/shutdown(file:line:)``.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance for `key`.
    @_disfavoredOverload @inlinable public func single<T, Key: Hashable, Failure: Error>(
        key: Key, _ factory: @MainActor (()) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil,
        close: (@MainActor (T) async throws -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try single(
            key: key, { _ throws(Failure) in try factory(()) }, configure: configure, close: close, id: id,
            file: file, line: line, column: column, function: function)
    }

    /// Provides one instance per resolution, of any type, built by a factory that needs no
    /// component. See the `scoped` whose factory receives the component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance once it is shared.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: This resolution's instance.
    @_disfavoredOverload @inlinable public func scoped<T, Failure: Error>(
        _ factory: @MainActor (()) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveInCell(
            .scoped, ProviderSite(id, file, line, column, function),
            make: { _ throws(Failure) in try factory(()) }, configure: configure)
    }

    /// Provides the same instance, of any class, built by a factory that needs no component, for as
    /// long as anyone outside the component holds it. See the `weak` whose factory receives the
    /// component.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes each new instance once it is cached.
    ///   - id: The provider's identity, for a helper (see ``ProviderID``); leave it out.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The live instance, or a new one.
    @_disfavoredOverload @inlinable public func weak<T: AnyObject, Failure: Error>(
        _ factory: @MainActor (()) throws(Failure) -> T,
        configure: (@MainActor (T, C) throws(Failure) -> Void)? = nil, id: ProviderID? = nil,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try resolveWeak(
            ProviderSite(id, file, line, column, function), make: { _ throws(Failure) in try factory(()) },
            configure: configure)
    }

    /// The close action of a main-actor instance, which runs on the main actor, where the instance
    /// lives.
    @inlinable static func closing<T>(_ close: (@MainActor (T) async throws -> Void)?) -> Closing<T>? {
        close.map { close -> Closing<T> in
            { value in { @MainActor [instance = MainActorBound(value)] in try await close(instance.value) } }
        }
    }
}
