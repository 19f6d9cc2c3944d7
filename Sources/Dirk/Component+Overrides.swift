extension Component {
    /// Replaces the factory of the one provider that `provider` calls, for this component and the
    /// children that reach it through their parents: the way to put a test's fake behind one
    /// provider without writing a module subclass.
    ///
    /// ```swift
    /// let app = AppComponent().overriding { $0.network.api() } with: { _ in FakeAPI() }
    /// let fake = app.network.api() as? FakeAPI
    /// ```
    ///
    /// `factory` is `@Sendable`, since any thread may build the provider: build the fake in it, as
    /// above, and get it back from the provider, or capture a fake that is `Sendable`.
    ///
    /// The provider keeps its strategy: an overridden `single` is still built once per
    /// component, by `factory`, and a `transient` calls `factory` every time. To find the
    /// provider, Dirk calls `provider` once, right away, and resolves it through `factory`; for a
    /// `single` that is its first and only build. A `single(key:)` override serves every key.
    ///
    /// `factory` makes the type that the provider's strategy builds. To override a provider that
    /// returns a protocol with another implementation, build the protocol in the provider:
    /// `func api() -> any API { single { LiveAPI() as any API } }`, not `single { LiveAPI() }`,
    /// whose strategy builds a `LiveAPI`.
    ///
    /// Only synchronous providers are overridden this way. For an async provider, register a
    /// module subclass that overrides the provider's method, with
    /// ``module(_:file:line:_:)``.
    ///
    /// Override providers when you build the component, before its first resolution. Overriding
    /// a provider that was already used, a provider of another component (a parent's), a provider
    /// whose strategy builds another type than `T`, or a closure that calls no provider or more
    /// than one stops the program with a message.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - provider: Calls the one provider to override, on this component.
    ///   - factory: Builds the provider's instances from now on. It may throw only errors that the
    ///     provider itself can throw.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func overriding<T>(
        file: StaticString = #fileID, line: UInt = #line,
        _ provider: (Self) throws -> T,
        with factory: @escaping @Sendable (Self) throws -> T
    ) -> Self {
        let capture = OverrideCapture(
            component: UInt(bitPattern: ObjectIdentifier(self)), componentType: type(of: self), file: file,
            line: line, valueType: T.self,
            factory: OverrideFactory<T>(file: file, line: line) { component in
                // Only this component's providers are overridden, so `component` is `self`.
                try factory(component as! Self)
            })
        let context = ResolutionContext.current
        let outer = context.capture
        context.capture = capture
        defer { context.capture = outer }
        // Sends the provider calls of this component and its ancestors down the path that sees the
        // capture, cached ones included, so that an override of a provider already used, or of an
        // ancestor's provider, is caught.
        observingSelfAndAncestors { _ = try? provider(self) }
        if capture.captured == nil {
            Diagnostics.overrideCalledNoProvider(component: type(of: self), file: file, line: line)
        }
        return self
    }
}

/// A factory that replaces a provider's, as `Component.overriding(_:with:)` stores it, with
/// where that call is.
@usableFromInline
final class OverrideFactory<Value>: OverrideOrigin, Sendable {
    @usableFromInline let make: @Sendable (Component) throws -> Value
    let file: StaticString
    let line: UInt

    init(file: StaticString, line: UInt, _ make: @escaping @Sendable (Component) throws -> Value) {
        self.file = file
        self.line = line
        self.make = make
    }

    var location: String { "\(file):\(line)" }
}

/// Where an override was set up, whatever type its factory makes.
protocol OverrideOrigin: AnyObject {
    /// The file and line of the `overriding(_:with:)` call: `AppTests/StoreTests.swift:12`.
    var location: String { get }
}

extension AnyModule {
    /// Where the overrides of the provider at `site` were set up, one for each type it was
    /// overridden for, for messages; empty if it is not overridden.
    @usableFromInline func overrideLocations(ofProviderAt site: ProviderSite) -> [String] {
        guard let slots = madeSlots else { return [] }
        let key = ProviderKey(site: site, type: Never.self)
        return slots.overrides { $0.hasSite(of: key) }.compactMap { ($0 as? any OverrideOrigin)?.location }
            .sorted()
    }
}

extension Module {
    /// The factory that replaces the provider at `key`, if one does; checked when the provider
    /// builds, so that an override set up after the provider's slot was made still applies.
    ///
    /// `key` is made only when the module has overrides: a `transient` makes its key for nothing
    /// else.
    @inlinable @inline(__always)
    func make<T, Failure: Error>(
        _ factory: (C) throws(Failure) -> T, key: @autoclosure () -> ProviderKey, component: Component
    ) throws -> T {
        if hasOverrides, let override = slots.override(for: key()) as? OverrideFactory<T> {
            return try override.make(component)
        }
        return try factory(Erasure.component(component, as: C.self))
    }
}

extension AnyModule {
    /// Makes the provider at `key`, the first that an override's closure calls, build through the
    /// override's factory from now on; stops the program if it cannot.
    ///
    /// Called before the provider's slot is found: the factory is set in the critical section of
    /// the module's slots that finds the provider unused, which is the one in which a call could
    /// make its slot. A call on another thread that makes the slot later builds through the
    /// factory; one that made it before makes this a late override. (Set after the slot was made,
    /// it would leave a moment in which another thread finds the slot and builds the original,
    /// which would stay cached.)
    func setUpOverride(_ capture: OverrideCapture, key: ProviderKey, frame: Frame, in slots: ProviderSlots) {
        if let first = capture.captured {
            Diagnostics.overrideCalledSeveralProviders(
                first, frame.name, component: capture.componentType, file: capture.file, line: capture.line)
        }
        capture.captured = frame.name
        guard componentReference.identity == capture.component else {
            Diagnostics.overrideOfAnotherComponent(
                frame.name, owner: componentType, component: capture.componentType, file: capture.file,
                line: capture.line)
        }
        guard frame.type == capture.valueType else {
            Diagnostics.overrideOfAnotherType(
                frame.name, strategy: frame.strategy.name, builds: frame.type, returns: capture.valueType,
                component: capture.componentType, file: capture.file, line: capture.line)
        }
        // A `transient` keeps nothing: overriding it again replaces its override.
        let replaces = frame.strategy == .transient
        guard slots.setOverride(capture.factory, forUnusedProviderAt: key, replaces: replaces) else {
            Diagnostics.lateOverride(
                frame.name, component: capture.componentType, file: capture.file, line: capture.line)
        }
    }
}
