/// A provider as recorded graphs tell it apart: the component it belongs to, the type of its
/// module and its key.
///
/// A name alone would merge providers: an override that calls `super`'s provider has the same
/// module type and method name as the provider it calls, and so do overloads that differ only in
/// their return type; their keys differ by place or by type. A component nested in another of its
/// own type (a screen inside a screen) has the same providers as its ancestor; their components
/// differ.
struct ProviderIdentity: Hashable {
    /// The component's address, compared only.
    let component: UInt
    let module: ObjectIdentifier
    let key: ProviderKey
    /// `Module.provider()`, which the module and the key decide.
    let name: String

    init(component: UInt, module: Any.Type, key: ProviderKey) {
        self.component = component
        self.module = ObjectIdentifier(module)
        self.key = key
        name = "\(module).\(key.functionName)"
    }

    /// A name for each of `providers` that no other of them has: `Module.provider()`; where two
    /// share that, the place of each one's strategy call too (`Module.provider() at
    /// App/Modules.swift:12`); where two share the place as well (a generic provider), the return
    /// type too (`Module.repository() -> Repository<User> at App/Modules.swift:20`); where two
    /// share the type as well, the column of each one's strategy call, for calls on one line
    /// (`... at App/Modules.swift:20:31`), and the component, for one provider of several
    /// components, as `components` names it (`... in the ancestor `ScreenComponent` 2`).
    static func uniqueNames(
        of providers: some Sequence<ProviderIdentity>, components: [UInt: String]
    ) -> [ProviderIdentity: String] {
        // Each label splits the groups that the one before it left together.
        let labels: [(ProviderIdentity) -> String] = [
            \.name, { "\($0.name) at \($0.key.location)" },
            { "\($0.name) -> \($0.key.returnType) at \($0.key.location)" },
        ]
        var names: [ProviderIdentity: String] = [:]
        var groups = [Array(providers)]
        for label in labels {
            groups = groups.flatMap { Dictionary(grouping: $0, by: label).values }
            for group in groups where group.count == 1 { names[group[0]] = label(group[0]) }
            groups.removeAll { $0.count == 1 }
        }
        // Strategy calls on one line: the column tells them apart, and the component tells one
        // provider's nodes in several components apart.
        for sameType in groups {
            let byComponent = Dictionary(grouping: sameType, by: \.component)
            for provider in sameType {
                let column = byComponent[provider.component]!.count > 1 ? ":\(provider.key.column)" : ""
                let owner = components[provider.component] ?? "another component"
                names[provider] =
                    labels.last!(provider) + column + (byComponent.count > 1 ? " in \(owner)" : "")
            }
        }
        return names
    }
}

/// An observed provider call: its provider, and what records its dependencies (the recorders of
/// the recording components that the call is made for).
typealias ObservedCall = (provider: ProviderIdentity, recorders: [AnyObject])
