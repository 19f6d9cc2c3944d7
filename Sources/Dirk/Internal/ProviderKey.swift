/// Where a provider method calls its strategy, captured by the strategy's default arguments.
///
/// The call site names the provider in messages (`function` is the provider method, such as
/// `store()`), and together with the declared return type it identifies the provider's slot.
@usableFromInline
struct CallSite {
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt
    @usableFromInline let column: UInt
    @usableFromInline let function: StaticString

    @_transparent @usableFromInline
    init(file: StaticString, line: UInt, column: UInt, function: StaticString) {
        self.file = file
        self.line = line
        self.column = column
        self.function = function
    }
}

/// What a `LookupTable` finds its values by: a provider (its call site and declared return type)
/// or a type alone (a module's or a parent's).
///
/// Two methods that return the same type have different call sites, overloads that differ only in
/// their return type have different call sites, and a generic provider gets one key per type.
/// A key is four words, hashed from integers alone; equality compares the file name by address
/// first and by content only when the addresses differ (a literal copied into another binary).
@usableFromInline
struct LookupKey: Equatable {
    @usableFromInline let type: ObjectIdentifier
    /// The call site's line and column, `line << 20 | column`; zero in the key of a type.
    @usableFromInline let position: UInt64
    /// The first byte of the provider's file name; nil in the key of a type.
    @usableFromInline let file: UnsafeRawPointer?
    /// The length of the file name in bytes.
    @usableFromInline let fileLength: Int

    /// The key of the provider at `site` returning `type`.
    @inlinable
    init(site: CallSite, type: Any.Type) {
        self.init(site: site, type: ObjectIdentifier(type))
    }

    /// The key of the provider called at `file`, `line` and `column`, returning `type`. Built from
    /// the call site's parts, not a `CallSite`, so that a provider's fast path stays small.
    @inlinable @inline(__always)
    init(file: StaticString, line: UInt, column: UInt, type: Any.Type) {
        self.init(file: file, line: line, column: column, type: ObjectIdentifier(type))
    }

    /// The key of the provider at `site` returning the type `type` identifies.
    @inlinable
    init(site: CallSite, type: ObjectIdentifier) {
        self.init(file: site.file, line: site.line, column: site.column, type: type)
    }

    /// The key of the provider called at `file`, `line` and `column`, returning the type `type`
    /// identifies.
    @inlinable @inline(__always)
    init(file: StaticString, line: UInt, column: UInt, type: ObjectIdentifier) {
        self.init(
            type: type, position: UInt64(line) &<< 20 | UInt64(column) & 0xF_FFFF,
            file: UnsafeRawPointer(file.utf8Start), fileLength: file.utf8CodeUnitCount)
    }

    /// The key made of these parts, as a table stores them.
    @inlinable
    init(type: ObjectIdentifier, position: UInt64, file: UnsafeRawPointer?, fileLength: Int) {
        self.type = type
        self.position = position
        self.file = file
        self.fileLength = fileLength
    }

    /// The key of `type` itself: a module's or a parent's.
    @inlinable
    init(type: Any.Type) {
        self.init(type: ObjectIdentifier(type), position: 0, file: nil, fileLength: 0)
    }

    /// A well-mixed hash; the table uses its low bits.
    @inlinable
    var mixedHash: Int {
        var bits = (UInt64(UInt(bitPattern: type)) ^ position) &* 0x9E37_79B9_7F4A_7C15
        bits ^= bits >> 29
        return Int(truncatingIfNeeded: bits)
    }

    @inlinable @inline(__always)
    static func == (lhs: LookupKey, rhs: LookupKey) -> Bool {
        lhs.type == rhs.type && lhs.position == rhs.position
            && (lhs.file == rhs.file
                || sameFile(lhs.file, lhs.fileLength, rhs.file, rhs.fileLength))
    }

    /// Whether two file names that lie at different addresses have the same bytes.
    @usableFromInline @inline(never) @_effects(releasenone)
    static func sameFile(
        _ lhs: UnsafeRawPointer?, _ lhsLength: Int, _ rhs: UnsafeRawPointer?, _ rhsLength: Int
    ) -> Bool {
        guard let lhs, let rhs, lhsLength == rhsLength else { return false }
        return UnsafeRawBufferPointer(start: lhs, count: lhsLength)
            .elementsEqual(UnsafeRawBufferPointer(start: rhs, count: rhsLength))
    }
}
