import CDirk

/// What a table of types finds its values by: a module's type, or the type a parent is asked for.
@usableFromInline package struct TypeKey: PublishedTableKey, Hashable {
    @usableFromInline package let type: ObjectIdentifier

    @inlinable package init(_ type: Any.Type) {
        self.type = ObjectIdentifier(type)
    }

    @inlinable package static var wordCount: Int { 1 }

    @inlinable package init(loadingFrom words: UnsafeMutablePointer<UInt>) {
        type = RegisteredType.identifier(fromBits: dirk_load_relaxed(words))
    }

    @usableFromInline package func store(into words: UnsafeMutablePointer<UInt>) {
        dirk_store_relaxed(words, UInt(bitPattern: type))
    }

    @inlinable package var mixedHash: Int {
        let bits = UInt64(UInt(bitPattern: type)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits ^ bits >> 29)
    }

    /// The type itself.
    var metatype: Any.Type { RegisteredType.type(fromBits: UInt(bitPattern: type)) }
}
