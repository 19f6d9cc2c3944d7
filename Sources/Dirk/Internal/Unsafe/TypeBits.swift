/// Types and identifiers kept as machine words in the lock-free tables, and turned back.
///
/// **Why it is safe.** A word given to these functions was made from the same kind of value by
/// `UInt(bitPattern: ObjectIdentifier(...))`: an `ObjectIdentifier` and an `Any.Type` are both one
/// pointer to type metadata, which lives as long as the process. The identifier is only compared,
/// never followed to an object.
@usableFromInline enum RegisteredType {
    /// The type whose identifier's bits are `bits`.
    @inlinable static func type(fromBits bits: UInt) -> Any.Type {
        unsafeBitCast(UnsafeRawPointer(bitPattern: bits)!, to: Any.Type.self)
    }

    /// The identifier whose bits are `bits`.
    @inlinable static func identifier(fromBits bits: UInt) -> ObjectIdentifier {
        unsafeBitCast(bits, to: ObjectIdentifier.self)
    }
}
