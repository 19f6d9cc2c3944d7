/// A dependency from an async provider, resolved on first use, once, without blocking a thread.
///
/// Get one from a component with `lazy { }` and an async closure; read it with
/// `try await handle.value`. It behaves as ``Lazy`` does: tasks that read it while it resolves
/// suspend until that one resolution ends, and it refers to its component without keeping it
/// alive.
///
/// ```swift
/// func reports() -> Reports { single { c in Reports(database: c.lazy { try await $0.storage.database() }) } }
/// let database = try await reports.database.value
/// ```
///
/// It hands one value to every reader, so it crosses tasks only when that value is `Sendable`.
public final class AsyncLazy<Value, Failure: Error> {
    // Immutable; the cell synchronizes itself.
    private let cell = StandaloneCell()
    private let source: HandleSource<AsyncResolve<Value, Failure>>

    init(_ source: HandleSource<AsyncResolve<Value, Failure>>) { self.source = source }

    /// The dependency, resolved on the first read and the same instance on every later one. If
    /// the resolution throws, every task waiting for it gets the error, and the next read tries
    /// again; but for the resolving task's own cancellation, whose `CancellationError` a waiting
    /// task that was not cancelled does not get: it resolves anew.
    ///
    /// The error has the type `Failure`: the resolving closure's error type.
    public var value: Value { get async throws(Failure) { try await resolvedValue() } }

    /// The dependency: what `value` reads.
    func resolvedValue() async throws(Failure) -> Value {
        if let ready = cell.readyValue { return Erasure.value(of: ready, as: Value.self) }
        let step = source.step(owner: self, handle: AsyncLazy.self, type: Value.self)
        let value = try await TaskAgent.withCurrent(at: step) { (agent) async throws(Failure) in
            if agent.enclosing(step) != nil { Diagnostics.handleReadWhileResolving(step) }
            let cancellable = CancellationError() is Failure
            return try await cell.reference.resolve(in: agent, step: step, cancellable: cancellable) {
                () async throws(Failure) in
                Erasure.object(of: try await source.resolve(in: agent, step: step))
            }!  // a standalone cell, never retired
        }
        return Erasure.value(of: value, as: Value.self)
    }
}

// Its fields are immutable and its cell synchronizes itself; what it shares is its value.
extension AsyncLazy: @unchecked Sendable where Value: Sendable {}

extension AsyncLazy where Failure == Never {
    /// The dependency, resolved on the first read and the same instance on every later one.
    public var value: Value { get async { await resolvedValue() } }
}

/// A dependency from an async provider, resolved anew on every call; see ``Provider``.
///
/// Get one from a component with `provider { }` and an async closure; call it with
/// `try await handle()`.
public struct AsyncProvider<Value, Failure: Error>: Sendable {
    fileprivate let source: HandleSource<AsyncResolve<Value, Failure>>

    /// Resolves the dependency now, with whatever strategy its provider uses.
    ///
    /// - Returns: What the provider returns now.
    public func callAsFunction() async throws(Failure) -> Value {
        let step = source.step(owner: nil, handle: AsyncProvider.self, type: Value.self)
        return try await TaskAgent.withCurrent(at: step) { (agent) async throws(Failure) in
            return try await agent.run(step, uncached: true) { () async throws(Failure) in
                try await source.resolve(in: agent, step: step)
            }
        }
    }
}

/// How an async handle resolves its value from its component, which an async resolution has
/// entered.
typealias AsyncResolve<Value, Failure: Error> = @Sendable (Component) async throws(Failure) -> Value

extension _ModuleOwner where Self: Component {
    /// A handle that resolves the async `resolve` from this component on its first read, once; see
    /// ``AsyncLazy``.
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func lazy<T, Failure: Error>(
        _ resolve: @escaping @Sendable (Self) async throws(Failure) -> T, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column
    ) -> AsyncLazy<T, Failure> { AsyncLazy(asyncHandleSource(file, line, column, "lazy(_:)", resolve)) }

    /// A handle that resolves the async `resolve` from this component on every call; see
    /// ``AsyncProvider``.
    ///
    /// - Parameters:
    ///   - resolve: Resolves the dependency from the component.
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    ///   - column: The caller's column, which tells apart handles made on one line; leave the
    ///     default.
    /// - Returns: A handle that refers to the component without keeping it alive.
    public func provider<T, Failure: Error>(
        _ resolve: @escaping @Sendable (Self) async throws(Failure) -> T, file: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column
    ) -> AsyncProvider<T, Failure> {
        AsyncProvider(source: asyncHandleSource(file, line, column, "provider(_:)", resolve))
    }

    private func asyncHandleSource<T, Failure: Error>(
        _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString,
        _ resolve: @escaping @Sendable (Self) async throws(Failure) -> T
    ) -> HandleSource<AsyncResolve<T, Failure>> {
        // Typed first: Swift 6.0 and 6.2 crash on the closure written as the argument.
        let erased: AsyncResolve<T, Failure> = { component async throws(Failure) -> T in
            try await resolve(Erasure.component(component, as: Self.self))
        }
        return handleSource(file, line, column, function, erased)
    }
}
