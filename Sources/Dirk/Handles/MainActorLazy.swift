/// A dependency whose value belongs to the main actor, resolved on first use on the main actor,
/// once.
///
/// Get one from a component with ``Component/mainActorLazy(_:file:line:column:)``. The handle itself may be
/// held anywhere, by objects of any isolation; its ``value`` is read on the main actor, which is
/// where it resolves. It refers to its component without keeping it alive, as ``Lazy`` does.
///
/// ```swift
/// func coordinator() -> Coordinator {
///     single { c in Coordinator(screen: c.mainActorLazy { $0.screens.viewModel() }) }
/// }
/// ```
public final class MainActorLazy<Value>: @unchecked Sendable {
    // Immutable; the cell synchronizes itself, and its value is made, read and released only on
    // the main actor, which `value` is isolated to (the handle's deinitializer releases it
    // wherever the handle goes, as any main-actor object's last release does).
    private let cell = StandaloneCell()
    private let source: HandleSource<MainActorResolve<Value>>

    init(_ source: HandleSource<MainActorResolve<Value>>) { self.source = source }

    /// The dependency, resolved on the first read and the same instance on every later one.
    @MainActor public var value: Value { source.read(cell, owner: self) { source.resolve($0) } }
}

/// A dependency whose value belongs to the main actor, resolved anew on every call; see
/// ``Provider``.
///
/// Get one from a component with ``Component/mainActorProvider(_:file:line:column:)``; call it on the main
/// actor.
public struct MainActorProvider<Value>: Sendable {
    fileprivate let source: HandleSource<MainActorResolve<Value>>

    /// Resolves the dependency now, on the main actor, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    @MainActor public func callAsFunction() -> Value {
        source.call(handle: MainActorProvider.self) { source.resolve($0) }
    }
}

/// How a main-actor handle resolves its value on the main actor (see `SyncResolve`).
typealias MainActorResolve<Value> = @MainActor @Sendable (Component) -> Value

extension _ModuleOwner where Self: Component {
    /// A handle whose value, resolved by `resolve` from this component on the main actor on its first
    /// read, belongs to the main actor; see ``MainActorLazy``.
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component, on the main actor.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func mainActorLazy<T>(
        _ resolve: @escaping @MainActor @Sendable (Self) -> T, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column
    ) -> MainActorLazy<T> {
        let erased: MainActorResolve<T> = { resolve(Erasure.component($0, as: Self.self)) }
        return MainActorLazy(handleSource(file, line, column, "mainActorLazy(_:)", erased))
    }

    /// A handle that resolves `resolve` from this component on the main actor on every call; see
    /// ``MainActorProvider``.
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component, on the main actor.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func mainActorProvider<T>(
        _ resolve: @escaping @MainActor @Sendable (Self) -> T, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column
    ) -> MainActorProvider<T> {
        let erased: MainActorResolve<T> = { resolve(Erasure.component($0, as: Self.self)) }
        return MainActorProvider(source: handleSource(file, line, column, "mainActorProvider(_:)", erased))
    }
}
