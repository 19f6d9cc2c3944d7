/// Where a provider method calls its strategy, captured by the strategy's default arguments.
///
/// The call site names the provider in messages (`function` is the provider method, such as
/// `store()`), and together with the declared return type it identifies the provider's slot.
struct CallSite {
    let file: StaticString
    let line: UInt
    let column: UInt
    let function: StaticString
}

/// Identifies one provider within a module: its call site and its declared return type.
///
/// Two methods that return the same type have different call sites, overloads that differ only in
/// their return type have different call sites, and a generic provider gets one key per type.
/// Hashing uses only integers; equality compares the file name by address first and by content
/// only when the addresses differ (a literal copied into another binary).
struct ProviderKey: LookupKey {
    let site: CallSite
    let type: ObjectIdentifier

    init(site: CallSite, type: Any.Type) {
        self.site = site
        self.type = ObjectIdentifier(type)
    }

    var mixedHash: Int {
        mix(type.hashValueWithoutSeed ^ (site.line &<< 20) ^ site.column)
    }

    static func == (lhs: ProviderKey, rhs: ProviderKey) -> Bool {
        guard lhs.site.line == rhs.site.line, lhs.site.column == rhs.site.column,
            lhs.type == rhs.type
        else { return false }
        return lhs.site.file.utf8Start == rhs.site.file.utf8Start
            || lhs.site.file.description == rhs.site.file.description
    }
}
