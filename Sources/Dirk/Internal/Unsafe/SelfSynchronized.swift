/// An object that synchronizes itself but cannot tell the compiler so, because it is a
/// `ManagedBuffer` (whose `Sendable` conformance is unavailable), wrapped for a `@Sendable`
/// closure, such as a task's cancellation handler.
///
/// Wrap only objects whose every mutable part is guarded by their own lock (`Locked` and its
/// subclasses).
struct SelfSynchronized<Object: AnyObject>: @unchecked Sendable {
    let object: Object

    init(_ object: Object) {
        self.object = object
    }
}
