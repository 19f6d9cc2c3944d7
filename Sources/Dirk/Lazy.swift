/// A dependency that is resolved on first use, once, even when several threads ask at once.
///
/// Get one from a module with `lazy(_:)`. It keeps its component alive until it has resolved, and
/// no longer after; taking a `Lazy` instead of the instance itself breaks a construction cycle,
/// since nothing is resolved until `value` is first read:
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
/// **Thread safety:** threads that read `value` while it is being resolved wait for that one
/// resolution. Reading `value` from within its own resolution stops the program.
public final class Lazy<Value>: @unchecked Sendable {
    // `state` is guarded by its own lock.
    private let state: Locked<State>

    private enum State {
        case pending(() -> Value)
        /// Being resolved by `resolver`'s thread; `waiters` is what other readers sleep on, made
        /// by the first of them.
        case resolving(resolver: ResolutionContext, waiters: Condition?)
        case resolved(Value)
    }

    init(_ resolve: @escaping () -> Value) {
        state = Locked.make(.pending(resolve))
    }

    /// The dependency, resolved on the first read and the same instance on every later one.
    public var value: Value {
        let context = ResolutionContext.current.takeUnretainedValue()
        while true {
            let step: Value? = state.withLock { state in
                switch state {
                case .resolved(let value):
                    return value
                case .resolving(let resolver, let existing):
                    if resolver === context {
                        Diagnostics.lazyCycle(valueType: Value.self)
                    }
                    let waiters = existing ?? Condition()
                    state = .resolving(resolver: resolver, waiters: waiters)
                    self.state.wait(on: waiters, nanoseconds: 20_000_000)
                    return nil
                case .pending:
                    return nil
                }
            }
            if let step { return step }
            // Claim the resolution, unless another thread did meanwhile.
            let resolve: (() -> Value)? = state.withLock { state in
                guard case .pending(let resolve) = state else { return nil }
                state = .resolving(resolver: context, waiters: nil)
                return resolve
            }
            guard let resolve else { continue }
            let value = resolve()
            // The resolver, and with it the component, is released here, after the lock.
            let finished = state.withLock { state in
                defer { state = .resolved(value) }
                if case .resolving(_, let waiters) = state { waiters?.broadcast() }
                return state
            }
            _ = finished
            return value
        }
    }
}

/// A dependency resolved anew on every call, for a consumer that needs several instances or needs
/// one later than it is built.
///
/// Get one from a module with `provider(_:)`. It keeps its component alive for as long as it is
/// held, and taking it instead of the instance breaks a construction cycle:
///
/// ```swift
/// func tabs() -> Tabs { single { c in Tabs(newPage: c.pages.provider { $0.pages.page() }) } }
/// let page = tabs.newPage()  // what `page()` returns now
/// ```
public struct Provider<Value>: Sendable {
    private let resolve: @Sendable () -> Value

    init(_ resolve: @escaping @Sendable () -> Value) {
        self.resolve = resolve
    }

    /// Resolves the dependency now, with whatever strategy its provider uses.
    public func callAsFunction() -> Value {
        resolve()
    }
}

extension Module {
    /// A handle that resolves `resolve` on first use, once; see `Lazy`.
    ///
    /// - Parameter resolve: Resolves the dependency from the component.
    /// - Returns: A handle that keeps the component alive until it has resolved.
    public func lazy<T>(_ resolve: @escaping @Sendable (C) -> T) -> Lazy<T> {
        let component = liveComponent(
            provider: "\(type(of: self)).lazy",
            site: CallSite(file: #fileID, line: #line, column: #column, function: #function))
        return Lazy { resolve(component) }
    }

    /// A handle that resolves `resolve` on every call; see `Provider`.
    ///
    /// - Parameter resolve: Resolves the dependency from the component.
    /// - Returns: A handle that keeps the component alive while it is held.
    public func provider<T>(_ resolve: @escaping @Sendable (C) -> T) -> Provider<T> {
        let component = liveComponent(
            provider: "\(type(of: self)).provider",
            site: CallSite(file: #fileID, line: #line, column: #column, function: #function))
        return Provider { resolve(component) }
    }
}
