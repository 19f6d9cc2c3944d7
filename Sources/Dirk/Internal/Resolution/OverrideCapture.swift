/// An override being set up on one thread: `Component.overriding(_:with:)` runs its closure with
/// this in the thread's resolution, and the first provider the closure calls is the one it
/// overrides.
@usableFromInline final class OverrideCapture {
    // Used only by the thread that set it up.
    /// The component whose provider is overridden, compared only.
    let component: UInt
    let componentType: Any.Type
    /// Where `overriding(_:with:)` was called, for messages.
    let file: StaticString
    let line: UInt
    /// The type the replacement factory makes, which must be the type the provider's strategy
    /// builds.
    let valueType: Any.Type
    /// The replacement factory, made and read by the layer above.
    let factory: AnyObject
    /// The provider the closure called, once it did.
    var captured: String?
    /// Set while the captured provider resolves through its new factory, whose own provider
    /// calls are ordinary.
    @usableFromInline var isSuspended = false

    init(
        component: UInt, componentType: Any.Type, file: StaticString, line: UInt, valueType: Any.Type,
        factory: AnyObject
    ) {
        self.component = component
        self.componentType = componentType
        self.file = file
        self.line = line
        self.valueType = valueType
        self.factory = factory
    }
}
