/// A dependency resolved on first use, once, even when several threads ask at once.
///
/// Get one from a module with ``Module/lazy(file:line:column:_:)``. Taking a `Lazy` instead of the
/// instance itself breaks a construction cycle, since nothing is resolved until ``value`` is first
/// read:
///
/// ```swift
/// final class Editor {
///     let spelling: Lazy<SpellChecker>
///     init(spelling: Lazy<SpellChecker>) { self.spelling = spelling }
/// }
///
/// func editor() -> Editor { transient { c in Editor(spelling: c.text.lazy { $0.text.spelling() }) } }
/// ```
///
/// **Lifetime:** a handle refers to its component without keeping it alive, so an instance that
/// the component caches may hold one without forming a retain cycle. Reading ``value`` for the
/// first time after the component was released stops the program with a message that says so;
/// once resolved, the value stays readable.
///
/// **Thread safety:** threads that read ``value`` while it resolves wait for that one resolution.
/// Reading it from within its own resolution stops the program.
public final class Lazy<Value>: @unchecked Sendable {
    // Immutable; the cell synchronizes itself.
    private let cell = OnceCell<StrongStorage<Value>>.make()
    private let source: HandleSource<Value>

    init(_ source: HandleSource<Value>) {
        self.source = source
    }

    /// The dependency, resolved on the first read and the same instance on every later one.
    public var value: Value {
        if let ready = cell.readyValue { return ready }
        let context = ResolutionContext.current
        let frame = source.frame(owner: self, handle: Lazy.self)
        if context.enclosing(frame) != nil {
            Diagnostics.handleReadWhileResolving(
                "Lazy<\(Value.self)>", component: source.componentType, site: source.site)
        }
        return cell.resolve(
            in: context, frame: frame, build: { source.resolve(in: context, frame: frame) },
            configures: false,
            configure: { _ in })
    }
}

/// A dependency resolved anew on every call, for a consumer that needs several instances or needs
/// one later than it is built.
///
/// Get one from a module with ``Module/provider(file:line:column:_:)``. Taking it instead of the
/// instance breaks a construction cycle:
///
/// ```swift
/// func tabs() -> Tabs { single { c in Tabs(newPage: c.pages.provider { $0.pages.page() }) } }
/// let page = tabs.newPage()  // what `page()` returns now
/// ```
///
/// **Lifetime:** a handle refers to its component without keeping it alive; calling it after the
/// component was released stops the program with a message that says so.
///
/// **Recursion:** calling the handle from within its own resolution (or one that the same module
/// made at the same place for the same component) stops the program with the path, as a
/// `transient` that calls itself does: the call could never end. A call that comes back through a
/// `single`, `weak`, `scoped` or keyed provider being built is not one: that provider's cell ends
/// it, handing a `configure:` closure's instance to its own thread, or reporting the cycle.
public struct Provider<Value>: Sendable {
    private let source: HandleSource<Value>

    init(_ source: HandleSource<Value>) {
        self.source = source
    }

    /// Resolves the dependency now, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    public func callAsFunction() -> Value {
        let context = ResolutionContext.current
        let frame = source.frame(owner: nil, handle: Provider.self)
        context.enterHandle(frame)
        let value = source.resolve(in: context, frame: frame)
        if let failure = context.leave() { Diagnostics.resolutionEndFailed(failure, at: frame) }
        return value
    }
}

/// What a handle resolves and where it was made: a closure that resolves the value from the
/// component, if the component is still alive.
struct HandleSource<Value>: Sendable {
    /// Where the handle was made, for messages.
    let site: ProviderSite
    /// The module that made the handle, compared only: the owner of the steps of a handle that
    /// is a value, which has no object of its own.
    let module: UInt
    /// The component's identity, compared only, and its type.
    let component: UInt
    let componentType: Any.Type
    /// Resolves the value from the component, which `context` holds for its resolution, or returns
    /// nil when the component is gone. Call it inside a step of `context`.
    let resolveIfAlive: @Sendable (ResolutionContext) -> Value?

    /// The handle's step, for the resolution stack and cycle paths.
    func frame(owner: AnyObject?, handle: Any.Type) -> Frame {
        Frame(
            .handle, owner: owner.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? module,
            component: component,
            site: site, type: Value.self, subject: handle, componentType: componentType)
    }

    /// The value, resolved now; stops the program if the component is gone.
    func resolve(in context: ResolutionContext, frame: Frame) -> Value {
        guard let value = resolveIfAlive(context) else {
            Diagnostics.handleAfterRelease("\(frame.name)", component: componentType, site: site)
        }
        return value
    }
}

extension Module {
    /// A handle that resolves `resolve` on first use, once; see ``Lazy``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func lazy<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @Sendable (C) -> T
    ) -> Lazy<T> {
        Lazy(handleSource(file: file, line: line, column: column, resolve))
    }

    /// A handle that resolves `resolve` on every call; see ``Provider``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func provider<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @Sendable (C) -> T
    ) -> Provider<T> {
        Provider(handleSource(file: file, line: line, column: column, resolve))
    }

    /// The source of a handle made at `file` and `line` that resolves with `resolve`.
    func handleSource<T>(
        file: StaticString, line: UInt, column: UInt, _ resolve: @escaping @Sendable (C) -> T
    )
        -> HandleSource<T>
    {
        let owner = componentReference
        return HandleSource(
            site: ProviderSite(file: file, line: line, column: column, function: "lazy(_:)"),
            module: UInt(bitPattern: ObjectIdentifier(self)),
            component: owner.identity,
            componentType: C.self
        ) { context in
            guard owner.holdIfAlive(in: context) else { return nil }
            return resolve(Erasure.component(owner.heldObject, as: C.self))
        }
    }
}
