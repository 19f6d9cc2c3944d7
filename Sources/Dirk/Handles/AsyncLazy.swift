/// A dependency from an async provider, resolved on first use, once, without blocking a thread.
///
/// Get one from a module with ``Module/asyncLazy(file:line:column:_:)``; read it with
/// `try await handle.value`. It behaves as ``Lazy`` does: tasks that read it while it resolves
/// suspend until that one resolution ends, and it refers to its component without keeping it
/// alive.
///
/// ```swift
/// func reports() -> Reports { single { c in Reports(database: c.storage.asyncLazy { try await $0.storage.database() }) } }
/// let database = try await reports.database.value
/// ```
public final class AsyncLazy<Value, Failure: Error>: @unchecked Sendable {
    // Immutable; the cell synchronizes itself.
    private let cell = OnceCell<StrongStorage<Value>>.make()
    private let source: AsyncHandleSource<Value, Failure>

    init(_ source: AsyncHandleSource<Value, Failure>) {
        self.source = source
    }

    /// The dependency, resolved on the first read and the same instance on every later one. If
    /// the resolution throws, every task waiting for it gets the error, and the next read tries
    /// again; but for the resolving task's own cancellation, whose `CancellationError` a waiting
    /// task that was not cancelled does not get: it resolves anew.
    func resolvedValue() async throws(Failure) -> Value {
        if let ready = cell.readyValue { return ready }
        let source = source
        return try await TaskAgent.withCurrent { (agent) async throws(Failure) in
            let frame = source.frame(owner: self, handle: AsyncLazy.self)
            if agent.enclosing(frame) != nil {
                Diagnostics.handleReadWhileResolving(
                    frame.name, component: source.componentType, site: source.site)
            }
            return try await cell.resolve(
                in: agent, frame: frame, cancellable: CancellationError() is Failure
            ) { () async throws(Failure) in
                try await source.resolve(frame: frame)
            }
        }
    }
}

extension AsyncLazy where Failure == Never {
    /// The dependency, resolved on the first read and the same instance on every later one.
    public var value: Value {
        get async { await resolvedValue() }
    }
}

extension AsyncLazy {
    /// The dependency, resolved on the first read and the same instance on every later one. If
    /// the resolution throws, every task waiting for it gets the error, and the next read tries
    /// again; but for the resolving task's own cancellation, whose `CancellationError` a waiting
    /// task that was not cancelled does not get: it resolves anew.
    ///
    /// The error has the type `Failure`: the resolving closure's error type.
    public var value: Value {
        get async throws { try await resolvedValue() }
    }
}

/// A dependency from an async provider, resolved anew on every call; see ``Provider``.
///
/// Get one from a module with ``Module/asyncProvider(file:line:column:_:)``; call it with
/// `try await handle()`.
public struct AsyncProvider<Value, Failure: Error>: Sendable {
    private let source: AsyncHandleSource<Value, Failure>

    init(_ source: AsyncHandleSource<Value, Failure>) {
        self.source = source
    }

    /// Resolves the dependency now, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    public func callAsFunction() async throws(Failure) -> Value {
        let source = source
        return try await TaskAgent.withCurrent { (agent) async throws(Failure) in
            let frame = source.frame(owner: nil, handle: AsyncProvider.self)
            if let enclosing = agent.enclosingHandle(frame) {
                Diagnostics.recursion(
                    path: agent.steps(from: enclosing) + [frame], at: frame, keys: ResolutionContext.stepKeys)
            }
            return try await agent.run(frame) { () async throws(Failure) in
                try await source.resolve(frame: frame)
            }
        }
    }
}

/// What an async handle resolves and where it was made.
struct AsyncHandleSource<Value, Failure: Error>: Sendable {
    let site: ProviderSite
    /// The module that made the handle, compared only: the owner of the steps of a handle that
    /// is a value, which has no object of its own.
    let module: UInt
    let component: UInt
    let componentType: Any.Type
    /// Resolves the value from the component, or returns nil when the component is gone.
    let resolveIfAlive: @Sendable () async throws(Failure) -> Value?

    func frame(owner: AnyObject?, handle: Any.Type) -> Frame {
        Frame(
            .handle, owner: owner.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? module,
            component: component,
            site: site, type: Value.self, subject: handle, componentType: componentType)
    }

    func resolve(frame: Frame) async throws(Failure) -> Value {
        guard let value = try await resolveIfAlive() else {
            Diagnostics.handleAfterRelease(frame.name, component: componentType, site: site)
        }
        return value
    }
}

extension Module {
    /// A handle that resolves the async `resolve` on first use, once; see ``AsyncLazy``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func asyncLazy<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @Sendable (C) async throws(Failure) -> T
    ) -> AsyncLazy<T, Failure> {
        AsyncLazy(asyncHandleSource(file: file, line: line, column: column, resolve))
    }

    /// A handle that resolves the async `resolve` on every call; see ``AsyncProvider``.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    ///   - resolve: Resolves the dependency from the component.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func asyncProvider<T, Failure: Error>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ resolve: @escaping @Sendable (C) async throws(Failure) -> T
    ) -> AsyncProvider<T, Failure> {
        AsyncProvider(asyncHandleSource(file: file, line: line, column: column, resolve))
    }

    private func asyncHandleSource<T, Failure: Error>(
        file: StaticString, line: UInt, column: UInt,
        _ resolve: @escaping @Sendable (C) async throws(Failure) -> T
    ) -> AsyncHandleSource<T, Failure> {
        let owner = componentReference
        return AsyncHandleSource(
            site: ProviderSite(file: file, line: line, column: column, function: "asyncLazy(_:)"),
            module: UInt(bitPattern: ObjectIdentifier(self)),
            component: owner.identity, componentType: C.self
        ) { () async throws(Failure) -> T? in
            guard let component = owner.strongIfAlive() else { return nil }
            return try await resolve(Erasure.component(component, as: C.self))
        }
    }
}
