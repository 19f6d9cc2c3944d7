/// A value that belongs to the main actor, carried through code that is not main-actor isolated:
/// the instance of a main-actor provider in the close action that the component keeps for it.
///
/// **Why it is safe.** The value is made on the main actor (by a main-actor provider's factory)
/// and read only there: `value` is main-actor isolated, and the box hands it to nothing else. The
/// close action that carries it runs `value`'s reader on the main actor.
@usableFromInline struct MainActorBound<Value>: @unchecked Sendable {
    @usableFromInline let stored: Value

    @inlinable init(_ value: Value) { stored = value }

    /// The value, on the main actor, where it was made.
    @inlinable @MainActor var value: Value { stored }
}
