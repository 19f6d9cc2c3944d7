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

/// Identifies one provider within a module: its call site and its declared return type.
///
/// Two methods that return the same type have different call sites, overloads that differ only in
/// their return type have different call sites, and a generic provider gets one key per type.
/// Hashing uses only integers; equality compares the file name by address first and by content
/// only when the addresses differ (a literal copied into another binary).
@usableFromInline
struct ProviderKey: LookupKey {
    @usableFromInline let site: CallSite
    @usableFromInline let type: ObjectIdentifier

    @inlinable
    init(site: CallSite, type: Any.Type) {
        self.site = site
        self.type = ObjectIdentifier(type)
    }

    @inlinable
    var mixedHash: Int {
        mix(UInt(bitPattern: type) ^ (site.line &<< 20) ^ site.column)
    }

    @inlinable
    static func == (lhs: ProviderKey, rhs: ProviderKey) -> Bool {
        lhs.site.line == rhs.site.line && lhs.site.column == rhs.site.column
            && lhs.type == rhs.type
            && (lhs.site.file.utf8Start == rhs.site.file.utf8Start || sameFile(lhs, rhs))
    }

    @usableFromInline
    static func sameFile(_ lhs: ProviderKey, _ rhs: ProviderKey) -> Bool {
        lhs.site.file.description == rhs.site.file.description
    }
}
