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
///     .inject(\.store) { $0.data.store() }
///     .inject(\.client) { $0.network.client() }
///
/// profileInjection.inject(into: controller, from: app)
/// ```
///
/// An injector for a base class or for a protocol that groups injectable properties serves every
/// subclass or conforming type through `including(_:as:)`, so each property is declared once.
///
/// **Thread safety:** an injector is an immutable value that can be shared; `inject(into:from:)`
/// resolves like any provider call, and sets the properties on the calling thread.
public struct Injector<Target, C: Component>: Sendable {
    private var steps: [@Sendable (Target, C) -> Void] = []

    /// An injector that fills nothing yet; add properties with `inject(_:_:)`.
    public init() {}

    /// An injector that also sets `keyPath` to what `resolve` returns.
    ///
    /// - Parameters:
    ///   - keyPath: The property to fill.
    ///   - resolve: Resolves its value from the component.
    /// - Returns: The extended injector.
    public func inject<Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value> & Sendable,
        _ resolve: @escaping @Sendable (C) -> Value
    ) -> Injector {
        var extended = self
        extended.steps.append { target, component in target[keyPath: keyPath] = resolve(component) }
        return extended
    }

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
        var extended = self
        extended.steps.append { target, component in other.inject(into: convert(target), from: component) }
        return extended
    }

    /// Sets every property the injector declares on `target`, in the order they were declared.
    ///
    /// - Parameters:
    ///   - target: The object to fill.
    ///   - component: The component whose providers supply the values.
    public func inject(into target: Target, from component: C) {
        for step in steps { step(target, component) }
    }
}
