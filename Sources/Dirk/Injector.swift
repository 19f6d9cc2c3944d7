/// Fills the properties of an object that Dirk did not create, such as a view controller made by a
/// storyboard, from a component's providers: declared once, with type-checked key paths, and
/// applied with one call.
///
/// ```swift
/// final class ProfileController {
///     var store: Store!
///     var client: Client!
/// }
///
/// let profileInjection = Injector<ProfileController, AppComponent>()
///     .injecting(\.store) { $0.data.store() }
///     .injecting(\.client) { $0.network.client() }
///
/// profileInjection.inject(into: controller, from: app)
/// ```
///
/// An injector for a base class or for a protocol that groups injectable properties serves every
/// subclass or conforming type through `including(_:as:)`, so each property is declared once.
///
/// **Thread safety:** an injector is an immutable value that can be shared;
/// `inject(into:from:file:line:)` resolves every property in one resolution, like one provider
/// call, and sets the properties on the calling thread.
public struct Injector<Target, C: Component>: Sendable {
    /// Each property's step: the target, the component, and the file and line of the
    /// `inject(into:from:file:line:)` call, which an included injector's own injection names.
    private var steps: [@Sendable (Target, C, StaticString, UInt) -> Void] = []

    /// An injector that fills nothing yet; add properties with `injecting(_:_:)`.
    public init() {}

    /// An injector with `steps`: an extended one.
    private init(steps: [@Sendable (Target, C, StaticString, UInt) -> Void]) { self.steps = steps }

    /// An injector that also sets `keyPath` to what `resolve` returns: a new injector, as an
    /// injector is a value, which ``inject(into:from:file:line:)`` applies.
    ///
    /// - Parameters:
    ///   - keyPath: The property to fill.
    ///   - resolve: Resolves its value from the component.
    /// - Returns: The extended injector.
    public func injecting<Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value> & Sendable,
        _ resolve: @escaping @Sendable (C) -> Value
    ) -> Injector {
        Self(steps: steps + [{ target, component, _, _ in target[keyPath: keyPath] = resolve(component) }])
    }

    /// An injector that also sets `keyPath`: ``injecting(_:_:)``.
    @available(*, deprecated, renamed: "injecting")
    public func inject<Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value> & Sendable,
        _ resolve: @escaping @Sendable (C) -> Value
    ) -> Injector { injecting(keyPath, resolve) }

    /// An injector that also fills what `other` fills, on the target seen as `Other`: a base class
    /// or a protocol that groups injectable properties.
    ///
    /// ```swift
    /// let controllerInjection = Injector<ProfileController, AppComponent>()
    ///     .including(trackingInjection) { $0 }   // a `TrackedScreen` protocol's properties
    /// ```
    ///
    /// - Parameters:
    ///   - other: The injector of the base class or protocol.
    ///   - convert: Sees the target as `Other`; `{ $0 }` for a subclass or a conforming type.
    /// - Returns: The extended injector.
    public func including<Other>(
        _ other: Injector<Other, C>, as convert: @escaping @Sendable (Target) -> Other
    ) -> Injector {
        Self(steps: steps + [{ other.inject(into: convert($0), from: $1, file: $2, line: $3) }])
    }

    /// Sets every property the injector declares on `target`, in the order they were declared,
    /// in one resolution: a `scoped` provider gives every property of one injection the same
    /// instance, and an injection made inside a provider's factory is part of that factory's
    /// resolution.
    ///
    /// - Parameters:
    ///   - target: The object to fill.
    ///   - component: The component whose providers supply the values.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    public func inject(
        into target: Target, from component: C, file: StaticString = #fileID, line: UInt = #line
    ) {
        component.inject(target, as: Target.self, file: file, line: line) {
            for step in steps { step(target, component, file, line) }
        }
    }
}

/// Fills the properties of a main-actor object that Dirk did not create, such as a view controller
/// or an app delegate, from a component's providers, main-actor ones included: ``Injector`` for
/// objects and providers that live on the main actor.
///
/// ```swift
/// @MainActor final class AppDelegate {
///     var window: Window?
///     var store: Store!
/// }
///
/// let delegateInjection = MainActorInjector<AppDelegate, AppComponent>()
///     .injecting(\.window) { $0.screens.window() }  // a MainActorModule's provider
///     .injecting(\.store) { $0.data.store() }
///
/// delegateInjection.inject(into: delegate, from: app)
/// ```
///
/// Everything said of ``Injector`` holds; in addition, its closures and its injection run on the
/// main actor, so a key path to a main-actor property, which is not `Sendable`, and a closure that
/// calls a main-actor provider are what it takes.
@MainActor public struct MainActorInjector<Target, C: Component>: Sendable {
    /// Each property's step: the target, the component, and the file and line of the injection.
    private var steps: [@MainActor (Target, C, StaticString, UInt) -> Void] = []

    /// An injector that fills nothing yet; add properties with `injecting(_:_:)`.
    public nonisolated init() {}

    /// An injector with `steps`: an extended one.
    private init(steps: [@MainActor (Target, C, StaticString, UInt) -> Void]) { self.steps = steps }

    /// An injector that also sets `keyPath` to what `resolve` returns: a new injector, which
    /// ``inject(into:from:file:line:)`` applies.
    ///
    /// - Parameters:
    ///   - keyPath: The property to fill.
    ///   - resolve: Resolves its value from the component, on the main actor.
    /// - Returns: The extended injector.
    public func injecting<Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, _ resolve: @escaping @MainActor (C) -> Value
    ) -> Self {
        Self(steps: steps + [{ target, component, _, _ in target[keyPath: keyPath] = resolve(component) }])
    }

    /// An injector that also fills what `other` fills, on the target seen as `Other`: a base class
    /// or a protocol that groups injectable properties. See ``Injector/including(_:as:)``.
    ///
    /// - Parameters:
    ///   - other: The injector of the base class or protocol.
    ///   - convert: Sees the target as `Other`; `{ $0 }` for a subclass or a conforming type.
    /// - Returns: The extended injector.
    public func including<Other>(
        _ other: MainActorInjector<Other, C>, as convert: @escaping @MainActor (Target) -> Other
    ) -> Self {
        Self(steps: steps + [{ other.inject(into: convert($0), from: $1, file: $2, line: $3) }])
    }

    /// Sets every property the injector declares on `target`, in the order they were declared, in
    /// one resolution, as ``Injector/inject(into:from:file:line:)`` does.
    ///
    /// - Parameters:
    ///   - target: The object to fill.
    ///   - component: The component whose providers supply the values.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    public func inject(
        into target: Target, from component: C, file: StaticString = #fileID, line: UInt = #line
    ) {
        component.inject(target, as: Target.self, file: file, line: line) {
            for step in steps { step(target, component, file, line) }
        }
    }
}

extension Component {
    /// Runs `body`, which fills the properties of `target`, of type `type`, in one resolution of this
    /// component: the injection of ``Injector`` and ``MainActorInjector`` at `file` and `line`.
    func inject(_ target: Any, as type: Any.Type, file: StaticString, line: UInt, _ body: () -> Void) {
        // The step is the object's: a property whose provider fills the same object again, with
        // an injector of the same type, would recurse without end, and stops with the path.
        let step = Step(
            .injection, owner: UInt(bitPattern: ObjectIdentifier(target as AnyObject)), component: identity,
            site: ProviderSite(file: file, line: line, column: 0, function: "inject(into:from:)"),
            type: type, subject: type, componentType: Swift.type(of: self))
        ResolutionContext.withCurrent { context in
            context.enterUncached { step }
            // One call into the component, through its gate, for all the properties.
            _ = storage.enter(in: context, for: step).orStop(step)  // kept by the resolution
            body()
            if let failure = context.leave() { Diagnostics.typedError(failure, as: Never.self, at: step) }
        }
    }
}
