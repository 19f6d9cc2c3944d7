/// A provider as recorded graphs tell it apart: the type of its module and its key.
///
/// A name alone would merge providers: an override that calls `super`'s provider has the same
/// module type and method name as the provider it calls, and so do overloads that differ only in
/// their return type. Their keys differ by place or by type.
struct ProviderIdentity: Hashable {
    let module: Any.Type
    let key: ProviderKey

    /// `Module.provider()`.
    var name: String { "\(module).\(key.functionName)" }

    static func == (lhs: ProviderIdentity, rhs: ProviderIdentity) -> Bool {
        ObjectIdentifier(lhs.module) == ObjectIdentifier(rhs.module) && lhs.key == rhs.key
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(module))
        hasher.combine(key)
    }

    /// A name for each of `providers` that no other of them has: `Module.provider()`; where two
    /// share that, the place of each one's strategy call too (`Module.provider() at
    /// App/Modules.swift:12`); where two share the place as well (a generic provider), the return
    /// type too (`Module.repository() -> Repository<User> at App/Modules.swift:20`).
    static func uniqueNames(of providers: some Sequence<ProviderIdentity>) -> [ProviderIdentity: String] {
        var names: [ProviderIdentity: String] = [:]
        for (name, sameName) in Dictionary(grouping: providers, by: \.name) {
            guard sameName.count > 1 else {
                names[sameName[0]] = name
                continue
            }
            for (location, samePlace) in Dictionary(grouping: sameName, by: \.key.location) {
                for provider in samePlace {
                    names[provider] =
                        samePlace.count == 1
                        ? "\(name) at \(location)" : "\(name) -> \(provider.key.returnType) at \(location)"
                }
            }
        }
        return names
    }
}
