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

    @inlinable
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
/// Hashing uses only integers; equality compares the file name by address first and by content
/// only when the addresses differ (a literal copied into another binary).
@usableFromInline
struct LookupKey: Equatable {
    @usableFromInline let type: ObjectIdentifier
    @usableFromInline let line: UInt
    @usableFromInline let column: UInt
    /// The provider's file; nil in the key of a type.
    @usableFromInline let file: StaticString?

    /// The key of the provider at `site` returning `type`.
    @inlinable
    init(site: CallSite, type: Any.Type) {
        self.type = ObjectIdentifier(type)
        line = site.line
        column = site.column
        file = site.file
    }

    /// The key of the provider at `site` returning the type `type` identifies.
    @inlinable
    init(site: CallSite, type: ObjectIdentifier) {
        self.type = type
        line = site.line
        column = site.column
        file = site.file
    }

    /// The key of `type` itself: a module's or a parent's.
    @inlinable
    init(type: Any.Type) {
        self.type = ObjectIdentifier(type)
        line = 0
        column = 0
        file = nil
    }

    /// A well-mixed hash; the table uses its low bits.
    @inlinable
    var mixedHash: Int {
        var bits = (UInt(bitPattern: type) ^ (line &<< 20) ^ column) &* 0x9E37_79B9_7F4A_7C15
        bits ^= bits >> 29
        return Int(bitPattern: bits)
    }

    @inlinable
    static func == (lhs: LookupKey, rhs: LookupKey) -> Bool {
        lhs.line == rhs.line && lhs.column == rhs.column && lhs.type == rhs.type
            && (lhs.file?.utf8Start == rhs.file?.utf8Start || sameFile(lhs, rhs))
    }

    @usableFromInline
    static func sameFile(_ lhs: LookupKey, _ rhs: LookupKey) -> Bool {
        lhs.file?.description == rhs.file?.description
    }
}
