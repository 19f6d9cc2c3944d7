/// A module whose providers belong to the main actor: view models, coordinators, anything a
/// screen's UI holds.
///
/// Subclass it instead of ``Module`` for such modules; the subclass and its providers are
/// isolated to the main actor, so main-actor callers call them without `await`:
///
/// ```swift
/// final class ScreenModule: MainActorModule<ScreenComponent>, @unchecked Sendable {
///     func viewModel() -> ScreenViewModel { transient { c in ScreenViewModel(store: c.data.store()) } }
/// }
/// ```
///
/// Its `single` keeps an object of any type, `Sendable` or not, since the instance never leaves
/// the main actor: the home of a view model or any other non-`Sendable` object that a screen
/// shares.
///
/// Dirk creates a module on first use, on the thread that first asks for it. A main-actor module
/// first asked for on another thread stops the program with a message that says so, instead of
/// being created off the main actor. Declare the accessor `@MainActor`
/// (`@MainActor var screens: ScreenModule { module() }`) and the compiler makes sure it never is.
/// See <doc:MainActor>.
@MainActor
open class MainActorModule<C: Component>: Module<C>, @unchecked Sendable {
    nonisolated override class var isMainActorModule: Bool { true }

    /// Creates the module on first use, on the main thread only.
    nonisolated override class func makeDefault(
        for component: Component, file: StaticString, line: UInt
    ) -> AnyModule {
        if !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleOffMainThread(
                self, component: type(of: component), file: file, line: line)
        }
        return super.makeDefault(for: component, file: file, line: line)
    }
}

extension MainActorModule {
    /// Provides one instance per component, of any type, on the main actor, built by a factory
    /// that needs no component: the home of a non-`Sendable` object that the component keeps, since
    /// the instance never leaves the main actor. It behaves as ``Module``'s `single` does.
    ///
    /// ```swift
    /// final class ScreenModule: MainActorModule<ScreenComponent>, @unchecked Sendable {
    ///     func history() -> NavigationHistory { single { NavigationHistory() } }  // not Sendable
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - file: Identifies the provider, with `line`, `column` and `function`; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        _ factory: @MainActor () throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try cachedSingle(file, line, column, function, make: { _ throws(Failure) in try factory() })
    }

    /// Provides one instance per component, of any type, on the main actor, built by a factory that
    /// receives the component. See `single(_:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance from the component's other providers.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        _ factory: @MainActor (C) throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try cachedSingle(file, line, column, function, make: factory)
    }

    /// Provides one instance per component, of any type, on the main actor, built by a factory that
    /// receives the component, and configures it after it is cached, as ``Module``'s
    /// `single(_:configure:)` does.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        _ factory: @MainActor (C) throws(Failure) -> T,
        configure: @MainActor (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try cachedSingle(file, line, column, function, make: factory, configures: true, configure: configure)
    }

    /// Provides one instance per component, of any type, on the main actor, built without the
    /// component and configured after it is cached. See `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    ///   - file: Identifies the provider; leave the default.
    ///   - line: See `file`.
    ///   - column: See `file`.
    ///   - function: See `file`.
    /// - Returns: The component's instance.
    @inlinable
    public func single<T, Failure: Error>(
        _ factory: @MainActor () throws(Failure) -> T,
        configure: @MainActor (T, C) throws(Failure) -> Void,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) throws(Failure) -> T {
        try cachedSingle(
            file, line, column, function, make: { _ throws(Failure) in try factory() }, configures: true,
            configure: configure)
    }
}
