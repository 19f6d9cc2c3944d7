import CDirk

/// What a module finds a provider's slot by: the provider method's name, the file, line and
/// column of its strategy call, and its declared return type.
///
/// Two methods that return the same type differ by name and position; overloads that differ only
/// in their return type differ by type; a generic provider gets one key per return type; two
/// methods that a macro or `#sourceLocation` places at the same position still differ by name.
///
/// A key is seven words, hashed from the type and position alone. Equality compares the file and
/// function names by address first, and by content only when the addresses differ (a literal
/// copied into another binary by inlining).
@usableFromInline package struct ProviderKey: Equatable {
    @usableFromInline package let type: ObjectIdentifier
    /// `line << 20 | column`.
    @usableFromInline package let position: UInt64
    @usableFromInline package let file: UnsafeRawPointer
    @usableFromInline package let fileLength: Int
    @usableFromInline package let function: UnsafeRawPointer
    @usableFromInline package let functionLength: Int

    /// The key of the provider called at `file`, `line` and `column` from `function`, returning
    /// `type`.
    @inlinable
    package init(file: StaticString, line: UInt, column: UInt, function: StaticString, type: Any.Type) {
        self.type = ObjectIdentifier(type)
        position = UInt64(line) &<< 20 | UInt64(column) & 0xF_FFFF
        self.file = UnsafeRawPointer(file.utf8Start)
        fileLength = file.utf8CodeUnitCount
        self.function = UnsafeRawPointer(function.utf8Start)
        functionLength = function.utf8CodeUnitCount
    }

    /// The provider method's name: `store()`.
    package var functionName: String {
        String(decoding: UnsafeRawBufferPointer(start: function, count: functionLength), as: UTF8.self)
    }

    /// The file and line of the strategy call, as messages show them: `App/DataModule.swift:12`.
    package var location: String {
        String(decoding: UnsafeRawBufferPointer(start: file, count: fileLength), as: UTF8.self)
            + ":\(position >> 20)"
    }

    /// The column of the strategy call.
    package var column: UInt { UInt(position & 0xF_FFFF) }

    /// The provider's declared return type.
    package var returnType: Any.Type { RegisteredType.type(fromBits: UInt(bitPattern: type)) }

    /// A well-mixed hash of the type and position; tables use its low bits.
    @inlinable package var mixedHash: Int {
        let bits = (UInt64(UInt(bitPattern: type)) ^ position) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits ^ bits >> 29)
    }

    @inlinable
    package static func == (lhs: ProviderKey, rhs: ProviderKey) -> Bool {
        lhs.type == rhs.type && lhs.hasSite(of: rhs)
    }

    /// Whether `other` is the key of a provider at the same site: the same name and position,
    /// whatever its type.
    @inlinable @inline(__always)
    package func hasSite(of other: ProviderKey) -> Bool {
        position == other.position
            && (file == other.file || Self.sameText(file, fileLength, other.file, other.fileLength))
            && (function == other.function
                || Self.sameText(function, functionLength, other.function, other.functionLength))
    }

    /// Whether two names that lie at different addresses have the same bytes.
    @inline(never)
    @usableFromInline static func sameText(
        _ lhs: UnsafeRawPointer, _ lhsLength: Int, _ rhs: UnsafeRawPointer, _ rhsLength: Int
    ) -> Bool {
        lhsLength == rhsLength
            && UnsafeRawBufferPointer(start: lhs, count: lhsLength)
                .elementsEqual(UnsafeRawBufferPointer(start: rhs, count: rhsLength))
    }
}

/// Hashed like the tables hash it, for dictionaries keyed by provider (overrides, recorded
/// graphs).
extension ProviderKey: Hashable {
    @inlinable package func hash(into hasher: inout Hasher) {
        hasher.combine(mixedHash)
    }
}

extension ProviderKey: PublishedTableKey {
    /// Seven: the position takes two words, so that it is whole on 32-bit platforms too (its high
    /// word repeats the top of the low one on 64-bit platforms).
    @inlinable package static var wordCount: Int { 7 }

    @inlinable package init(loadingFrom words: UnsafeMutablePointer<UInt>) {
        type = RegisteredType.identifier(fromBits: dirk_load_relaxed(words))
        position = UInt64(dirk_load_relaxed(words + 1)) | UInt64(dirk_load_relaxed(words + 6)) &<< 32
        file = UnsafeRawPointer(bitPattern: dirk_load_relaxed(words + 2))!
        fileLength = Int(bitPattern: dirk_load_relaxed(words + 3))
        function = UnsafeRawPointer(bitPattern: dirk_load_relaxed(words + 4))!
        functionLength = Int(bitPattern: dirk_load_relaxed(words + 5))
    }

    @usableFromInline package func store(into words: UnsafeMutablePointer<UInt>) {
        dirk_store_relaxed(words, UInt(bitPattern: type))
        dirk_store_relaxed(words + 1, UInt(truncatingIfNeeded: position))
        dirk_store_relaxed(words + 2, UInt(bitPattern: file))
        dirk_store_relaxed(words + 3, UInt(bitPattern: fileLength))
        dirk_store_relaxed(words + 4, UInt(bitPattern: function))
        dirk_store_relaxed(words + 5, UInt(bitPattern: functionLength))
        dirk_store_relaxed(words + 6, UInt(truncatingIfNeeded: position &>> 32))
    }
}
