/// A dependency whose value belongs to the main actor, resolved on first use on the main actor,
/// once.
///
/// Get one from a module with ``Module/mainActorLazy(file:line:column:_:)``. The handle itself may be
/// held anywhere, by objects of any isolation; its ``value`` is read on the main actor, which is
/// where it resolves. It refers to its component without keeping it alive, as ``Lazy`` does.
///
/// ```swift
/// func coordinator() -> Coordinator {
///     single { c in Coordinator(screen: c.screens.mainActorLazy { $0.screens.viewModel() }) }
/// }
/// ```
public final class MainActorLazy<Value>: @unchecked Sendable {
    // Immutable; the cell synchronizes itself, and its value is made, read and released only on
    // the main actor, which `value` is isolated to (the handle's deinitializer releases it
    // wherever the handle goes, as any main-actor object's last release does).
    private let cell = OnceCell<StrongStorage<Value>>.make()
    private let source: MainActorHandleSource<Value>

    init(_ source: MainActorHandleSource<Value>) {
        self.source = source
    }

    /// The dependency, resolved on the first read and the same instance on every later one.
    @MainActor
    public var value: Value {
        if let ready = cell.readyValue { return ready }
        let context = ResolutionContext.current
        let frame = source.frame(owner: self, handle: MainActorLazy.self)
        if context.enclosing(frame) != nil {
            Diagnostics.handleReadWhileResolving(
                frame.name, component: source.componentType, site: source.site)
        }
        return cell.resolve(
            in: context, frame: frame, build: { source.resolve(in: context, frame: frame) },
            configures: false,
            configure: { _ in })
    }
}

/// A dependency whose value belongs to the main actor, resolved anew on every call; see
/// ``Provider``.
///
/// Get one from a module with ``Module/mainActorProvider(file:line:column:_:)``; call it on the main
/// actor.
public struct MainActorProvider<Value>: Sendable {
    private let source: MainActorHandleSource<Value>

    init(_ source: MainActorHandleSource<Value>) {
        self.source = source
    }

    /// Resolves the dependency now, on the main actor, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    @MainActor
    public func callAsFunction() -> Value {
        let context = ResolutionContext.current
        let frame = source.frame(owner: nil, handle: MainActorProvider.self)
        context.enterHandle(frame)
        let value = source.resolve(in: context, frame: frame)
        if let failure = context.leave() { Diagnostics.resolutionEndFailed(failure, at: frame) }
        return value
    }
}

/// What a main-actor handle resolves and where it was made.
struct MainActorHandleSource<Value>: Sendable {
    let site: ProviderSite
    /// The module that made the handle, compared only: the owner of the steps of a handle that
    /// is a value, which has no object of its own.
    let module: UInt
    let component: UInt
    let componentType: Any.Type
    /// Resolves the value from the component, which `context` holds for its resolution, or returns
    /// nil when the component is gone. Call it inside a step of `context`.
    let resolveIfAlive: @MainActor @Sendable (ResolutionContext) -> Value?

    func frame(owner: AnyObject?, handle: Any.Type) -> Frame {
        Frame(
            .handle, owner: owner.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? module,
            component: component,
            site: site, type: Value.self, subject: handle, componentType: componentType)
    }

    @MainActor
    func resolve(in context: ResolutionContext, frame: Frame) -> Value {
        guard let value = resolveIfAlive(context) else {
            Diagnostics.handleAfterRelease(frame.name, component: componentType, site: site)
        }
        return value
    }
}

extension Module {
    /// A handle whose value, resolved by `resolve` on the main actor on first use, belongs to the
    /// main actor; see ``MainActorLazy``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component, on the main actor.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func mainActorLazy<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @MainActor @Sendable (C) -> T
    ) -> MainActorLazy<T> {
        MainActorLazy(mainActorHandleSource(file: file, line: line, column: column, resolve))
    }

    /// A handle that resolves `resolve` on the main actor on every call; see
    /// ``MainActorProvider``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component, on the main actor.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func mainActorProvider<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @MainActor @Sendable (C) -> T
    ) -> MainActorProvider<T> {
        MainActorProvider(mainActorHandleSource(file: file, line: line, column: column, resolve))
    }

    private func mainActorHandleSource<T>(
        file: StaticString, line: UInt, column: UInt, _ resolve: @escaping @MainActor @Sendable (C) -> T
    ) -> MainActorHandleSource<T> {
        let owner = componentReference
        return MainActorHandleSource(
            site: ProviderSite(file: file, line: line, column: column, function: "mainActorLazy(_:)"),
            module: UInt(bitPattern: ObjectIdentifier(self)),
            component: owner.identity, componentType: C.self
        ) { context in
            guard owner.holdIfAlive(in: context) else { return nil }
            return resolve(Erasure.component(owner.heldObject, as: C.self))
        }
    }
}
