/// A dependency resolved on first use, once, even when several threads ask at once.
///
/// Get one from a component with ``Component/lazy(_:file:line:column:)->Lazy<T>``. Taking a `Lazy` instead of the
/// instance itself breaks a construction cycle, since nothing is resolved until ``value`` is first
/// read:
///
/// ```swift
/// final class Editor {
///     let spelling: Lazy<SpellChecker>
///     init(spelling: Lazy<SpellChecker>) { self.spelling = spelling }
/// }
///
/// func editor() -> Editor { transient { c in Editor(spelling: c.lazy { $0.text.spelling() }) } }
/// ```
///
/// **Lifetime:** a handle refers to its component without keeping it alive, so an instance that
/// the component caches may hold one without forming a retain cycle. Reading ``value`` for the
/// first time after the component was released, or after its shutdown began, stops the program
/// with a message that says so, and names the provider the handle reads when the component is
/// still there; once resolved, the value stays readable.
///
/// **Thread safety:** threads that read ``value`` while it resolves wait for that one resolution.
/// Reading it from within its own resolution stops the program. A `Lazy` hands one value to every
/// reader, so it crosses threads only when that value is `Sendable`.
public final class Lazy<Value> {
    // Immutable; the cell synchronizes itself.
    private let cell = StandaloneCell()
    private let source: HandleSource<SyncResolve<Value>>

    init(_ source: HandleSource<SyncResolve<Value>>) { self.source = source }

    /// The dependency, resolved on the first read and the same instance on every later one.
    public var value: Value { source.read(cell, owner: self, source.resolve) }
}

// Its fields are immutable and its cell synchronizes itself; what it shares is its value.
extension Lazy: @unchecked Sendable where Value: Sendable {}

/// A dependency resolved anew on every call, for a consumer that needs several instances or needs
/// one later than it is built.
///
/// Get one from a component with ``Component/provider(_:file:line:column:)->Provider<T>``. Taking it instead of the
/// instance breaks a construction cycle:
///
/// ```swift
/// func tabs() -> Tabs { single { c in Tabs(newPage: c.provider { $0.pages.page() }) } }
/// let page = tabs.newPage()  // what `page()` returns now
/// ```
///
/// **Lifetime:** a handle refers to its component without keeping it alive; calling it after the
/// component was released, or after its shutdown began, stops the program with a message that says
/// so.
///
/// **Recursion:** calling the handle from within its own resolution (or one that the same module
/// made at the same place for the same component) stops the program with the path, as a
/// `transient` that calls itself does: the call could never end. A call that comes back through a
/// `single`, `weak`, `scoped` or keyed provider being built is not one: that provider's cell ends
/// it, handing a `configure:` closure's instance to its own thread, or reporting the cycle.
public struct Provider<Value>: Sendable {
    fileprivate let source: HandleSource<SyncResolve<Value>>

    /// Resolves the dependency now, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    public func callAsFunction() -> Value { source.call(handle: Provider.self, source.resolve) }
}

/// How a handle resolves its value from its component, which a resolution has entered.
typealias SyncResolve<Value> = @Sendable (Component) -> Value

/// What a handle resolves and where it was made: for `Lazy` and `Provider`, a `SyncResolve`; for
/// the main-actor handles, the same on the main actor; for the async handles, an async closure.
struct HandleSource<Resolve: Sendable>: Sendable {
    /// Where the handle was made, for messages.
    let site: ProviderSite
    /// The component's storage, through which the handle enters the component; its address, the
    /// component's, is also the owner of the steps of a handle that is a value, which has no object
    /// of its own.
    let storage: Locked<ComponentState>
    /// The component's type.
    let componentType: Any.Type
    let resolve: Resolve

    /// The handle's step, for the resolution stack and cycle paths.
    func step(owner: AnyObject?, handle: Any.Type, type: Any.Type) -> Step {
        Step(
            .handle, owner: owner.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? storage.buffer.address,
            component: storage.buffer.address, site: site, type: type, subject: handle,
            componentType: componentType)
    }

    /// A read of the lazy handle `owner`: the value kept in `cell`, or on the first read, the value
    /// that `resolve` makes from the component, which the thread's resolution enters. Stops the
    /// program if the handle is being read from within its own resolution, which could never
    /// finish, or if the component is gone or shut down.
    func read<Value>(_ cell: StandaloneCell, owner: AnyObject, _ resolve: (Component) -> Value) -> Value {
        if let ready = cell.readyValue { return Erasure.value(of: ready, as: Value.self) }
        let context = ResolutionContext.current
        let step = step(owner: owner, handle: type(of: owner), type: Value.self)
        if context.enclosing(step) != nil { Diagnostics.handleReadWhileResolving(step) }
        let value = cell.reference.resolveUnlessRetired(
            in: context, step: step,
            build: { Erasure.object(of: self.resolve(in: context, step: step, resolve)) })!
        return Erasure.value(of: value, as: Value.self)
    }

    /// A call of a provider handle: the value that `resolve` makes now from the component, which
    /// the thread's resolution enters, inside the handle's step. Stops the program if the component
    /// is gone or shut down.
    func call<Value>(handle: Any.Type, _ resolve: (Component) -> Value) -> Value {
        let context = ResolutionContext.current
        let step = step(owner: nil, handle: handle, type: Value.self)
        context.enterUncached { step }
        let value = self.resolve(in: context, step: step, resolve)
        if let failure = context.leave() { Diagnostics.typedError(failure, as: Never.self, at: step) }
        return value
    }

    /// The value that `read` makes now from the component, which the thread's resolution `context`
    /// enters, in the handle's step `step`; stops the program if the component is gone or shut
    /// down. A read that the shutdown refuses runs `read` all the same, without entering the
    /// component, so that the message names the provider it reads (see `RefusedRead`).
    func resolve<Value>(in context: ResolutionContext, step: Step, _ read: (Component) -> Value) -> Value {
        let storage = storage.buffer
        switch storage.enter(in: context, for: step) {
        case .entered(let entry): return entry.withObject { read(Erasure.component($0, as: Component.self)) }
        case .refused(let component):
            RefusedRead.$current.withValue((storage.address, step.name, step.site)) { _ = read(component) }
            component.refuse(step)
        }
    }

    /// An async handle's value, resolved now in the component, which `agent`'s resolution enters;
    /// stops the program if the component is gone or shut down. A read that the shutdown refuses runs
    /// `resolve` all the same, without entering the component, so that the message names the provider
    /// it reads (see `RefusedRead`).
    func resolve<Value, Failure: Error>(in agent: TaskAgent, step: Step) async throws(Failure) -> Value
    where Resolve == AsyncResolve<Value, Failure> {
        let storage = storage.buffer
        switch storage.enter(in: agent, for: step) {
        case .entered(let entry):
            return try await resolve(Erasure.component(entry.object, as: Component.self))
        case .refused(let component):
            await RefusedRead.$current.withValue((storage.address, step.name, step.site)) {
                _ = try? await resolve(component)
            }
            component.refuse(step)
        }
    }
}

extension _ModuleOwner where Self: Component {
    /// A handle that resolves `resolve` from this component on its first read, once; see ``Lazy``.
    ///
    /// ```swift
    /// func editor() -> Editor { transient { c in Editor(spelling: c.lazy { $0.text.spelling() }) } }
    /// ```
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func lazy<T>(
        _ resolve: @escaping @Sendable (Self) -> T, file: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column
    ) -> Lazy<T> {
        Lazy(handleSource(file, line, column, "lazy(_:)") { resolve(Erasure.component($0, as: Self.self)) })
    }

    /// A handle that resolves `resolve` from this component on every call; see ``Provider``.
    ///
    /// ```swift
    /// func tabs() -> Tabs { single { c in Tabs(newPage: c.provider { $0.pages.page() }) } }
    /// ```
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func provider<T>(
        _ resolve: @escaping @Sendable (Self) -> T, file: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column
    ) -> Provider<T> {
        let erased: SyncResolve<T> = { resolve(Erasure.component($0, as: Self.self)) }
        return Provider(source: handleSource(file, line, column, "provider(_:)", erased))
    }

    /// The source of a handle made at `file`, `line` and `column` that resolves with `resolve`.
    func handleSource<Resolve>(
        _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString, _ resolve: Resolve
    ) -> HandleSource<Resolve> {
        HandleSource(
            site: ProviderSite(file: file, line: line, column: column, function: function),
            storage: Locked(buffer: storage), componentType: type(of: self), resolve: resolve)
    }
}

// The handles made on the module, deprecated: every kind of handle is made on the component.
extension ModuleBase {
    /// A handle made on the module: ``Component/lazy(_:file:line:column:)->Lazy<T>`` on its component.
    @available(*, deprecated, message: "make the handle on the component: `c.lazy { $0.data.store() }`")
    public func lazy<T>(
        _ resolve: @escaping @Sendable (C) -> T, file: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column
    ) -> Lazy<T> { component.lazy(resolve, file: file, line: line, column: column) }

    /// A handle made on the module: ``Component/provider(_:file:line:column:)->Provider<T>`` on its component.
    @available(*, deprecated, message: "make the handle on the component: `c.provider { $0.data.store() }`")
    public func provider<T>(
        _ resolve: @escaping @Sendable (C) -> T, file: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column
    ) -> Provider<T> { component.provider(resolve, file: file, line: line, column: column) }

    /// An async handle made on the module: `lazy(_:)` on its
    /// component.
    @available(*, deprecated, message: "make the handle on the component: `c.lazy { await $0.data.db() }`")
    public func asyncLazy<T, Failure: Error>(
        _ resolve: @escaping @Sendable (C) async throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ) -> AsyncLazy<T, Failure> { component.lazy(resolve, file: file, line: line, column: column) }

    /// An async handle made on the module: `provider(_:)` on its
    /// component.
    @available(*, deprecated, message: "make it on the component: `c.provider { await $0.data.db() }`")
    public func asyncProvider<T, Failure: Error>(
        _ resolve: @escaping @Sendable (C) async throws(Failure) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ) -> AsyncProvider<T, Failure> { component.provider(resolve, file: file, line: line, column: column) }

    /// A main-actor handle made on the module: ``Component/mainActorLazy(_:file:line:column:)`` on its
    /// component.
    @available(*, deprecated, message: "make it on the component: `c.mainActorLazy { $0.ui.model() }`")
    public func mainActorLazy<T>(
        _ resolve: @escaping @MainActor @Sendable (C) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ) -> MainActorLazy<T> { component.mainActorLazy(resolve, file: file, line: line, column: column) }

    /// A main-actor handle made on the module: ``Component/mainActorProvider(_:file:line:column:)`` on
    /// its component.
    @available(*, deprecated, message: "make it on the component: `c.mainActorProvider { $0.ui.model() }`")
    public func mainActorProvider<T>(
        _ resolve: @escaping @MainActor @Sendable (C) -> T,
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ) -> MainActorProvider<T> { component.mainActorProvider(resolve, file: file, line: line, column: column) }
}
