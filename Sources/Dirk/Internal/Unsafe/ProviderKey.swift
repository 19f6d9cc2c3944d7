/// What a provider's cell is found by, with its module: the provider method's name, the file, line
/// and column of its strategy call (its `ProviderSite`), and its declared return type.
///
/// Two methods that return the same type differ by name and position; overloads that differ only
/// in their return type differ by type; a generic provider gets one key per return type; two
/// methods that a macro or `#sourceLocation` places at the same position still differ by name.
///
/// A key is six words, hashed from the type and position alone, where a site is eight (a
/// `StaticString` is three): the cached reads compare and copy keys. Equality compares the file and
/// function names by address first, and by content only when the addresses differ (a literal
/// copied into another binary by inlining).
///
/// **Why it is safe.** The names are the addresses and lengths of static strings, which live as
/// long as the process; a key reads them only to compare or print them.
@usableFromInline package struct ProviderKey: Hashable {
    /// The provider's declared return type.
    @usableFromInline package let returnType: Any.Type
    /// `line << 20 | column`.
    @usableFromInline package let position: UInt64
    @usableFromInline package let file: UnsafeRawPointer
    @usableFromInline package let fileLength: Int
    @usableFromInline package let function: UnsafeRawPointer
    @usableFromInline package let functionLength: Int

    /// The key of the provider called at `file`, `line` and `column` from `function`, returning
    /// `type`: `ProviderKey(site:type:)`, which this layer cannot name.
    @inlinable
    package init(file: StaticString, line: UInt, column: UInt, function: StaticString, type: Any.Type) {
        returnType = type
        position = UInt64(line) &<< 20 | UInt64(column) & 0xF_FFFF
        self.file = UnsafeRawPointer(file.utf8Start)
        fileLength = file.utf8CodeUnitCount
        self.function = UnsafeRawPointer(function.utf8Start)
        functionLength = function.utf8CodeUnitCount
    }

    /// The provider method's name: `store()`.
    package var functionName: String { Self.text(function, functionLength) }

    /// The file and line of the strategy call, as messages show them: `App/DataModule.swift:12`.
    package var location: String { Self.text(file, fileLength) + ":\(position >> 20)" }

    /// The `count` bytes of UTF-8 at `start`, as a string.
    private static func text(_ start: UnsafeRawPointer, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// The column of the strategy call.
    package var column: UInt { UInt(position & 0xF_FFFF) }

    @inlinable package static func == (lhs: ProviderKey, rhs: ProviderKey) -> Bool {
        ObjectIdentifier(lhs.returnType) == ObjectIdentifier(rhs.returnType) && lhs.hasSite(of: rhs)
    }

    /// Hashes the type and the position, which tell providers apart, and not the names.
    @inlinable package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(returnType))
        hasher.combine(position)
    }

    /// Whether `other` is the key of a provider at the same site: the same name and position,
    /// whatever its type.
    @inlinable @inline(__always) package func hasSite(of other: ProviderKey) -> Bool {
        position == other.position
            && (file == other.file || Self.sameText(file, fileLength, other.file, other.fileLength))
            && (function == other.function
                || Self.sameText(function, functionLength, other.function, other.functionLength))
    }

    /// Whether two names that lie at different addresses have the same bytes.
    @inline(never) @usableFromInline static func sameText(
        _ lhs: UnsafeRawPointer, _ lhsLength: Int, _ rhs: UnsafeRawPointer, _ rhsLength: Int
    ) -> Bool {
        lhsLength == rhsLength
            && UnsafeRawBufferPointer(start: lhs, count: lhsLength)
                .elementsEqual(UnsafeRawBufferPointer(start: rhs, count: rhsLength))
    }
}
