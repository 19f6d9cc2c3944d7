/// One element that a component contributes to a collection: its key, its metadata, and how to
/// build it, listed without building it.
///
/// Components contribute elements with `contribute(_:key:metadata:_:)`; `contributions(of:)`
/// lists a component's and its ancestors' contributions, so that a caller can choose by key or
/// metadata and then build only the chosen ones with `resolve()`.
public struct Contribution<Element>: Sendable {
    /// The key the element was contributed under, unique among the collection's contributions.
    public let key: String
    /// What the contributing component said about the element, for filtering before building it.
    public let metadata: (any Sendable)?
    /// The type of the component that contributed it.
    public let contributor: Component.Type
    private let build: @Sendable () -> Element

    init(
        key: String, metadata: (any Sendable)?, contributor: Component.Type,
        build: @escaping @Sendable () -> Element
    ) {
        self.key = key
        self.metadata = metadata
        self.contributor = contributor
        self.build = build
    }

    /// The metadata, if it is a `Metadata`.
    public func metadata<Metadata>(as type: Metadata.Type) -> Metadata? {
        metadata as? Metadata
    }

    /// Builds the element now, through the provider it was contributed with, with that provider's
    /// strategy.
    public func resolve() -> Element {
        build()
    }
}

extension Component {
    /// Contributes an element to the collection of `type`, under `key`, built by `resolve` only
    /// when someone asks for it.
    ///
    /// ```swift
    /// let app = AppComponent()
    ///     .contribute(Interceptor.self, key: "auth", metadata: 10) { $0.network.auth() }
    ///     .contribute(Interceptor.self, key: "log", metadata: 20) { $0.network.logging() }
    /// ```
    ///
    /// A child's contributions add to its parents' and never replace them: a key already used in
    /// the collection, by this component or an ancestor, stops the program.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - key: Identifies the element within the collection.
    ///   - metadata: Anything that helps choose elements without building them.
    ///   - resolve: Builds the element from this component, usually by calling a provider.
    /// - Returns: This component, for chaining.
    @discardableResult
    public func contribute<Element>(
        _ type: Element.Type, key: String, metadata: (any Sendable)? = nil,
        file: StaticString = #fileID, line: UInt = #line,
        _ resolve: @escaping @Sendable (Self) -> Element
    ) -> Self {
        let elementType = ObjectIdentifier(type)
        if let owner = contributions(of: type).first(where: { $0.key == key })?.contributor {
            Diagnostics.duplicateContribution(
                key: key, element: type, component: Swift.type(of: self), owner: owner, file: file, line: line
            )
        }
        let registration = Registration(key: key, metadata: metadata) { component in
            resolve(unsafeDowncast(component, to: Self.self))
        }
        withStateLock { $0.contributions[elementType, default: []].append(registration) }
        return self
    }

    /// Every contribution to the collection of `type`: the ancestors' first, farthest first, then
    /// this component's, each in the order it was made. Nothing is built.
    ///
    /// - Parameter type: The element type of the collection.
    /// - Returns: The contributions, to filter by key or metadata and resolve.
    public func contributions<Element>(of type: Element.Type) -> [Contribution<Element>] {
        let elementType = ObjectIdentifier(type)
        let all = contributingComponents().flatMap { component in
            component.withStateLock { $0.contributions[elementType] ?? [] }.map { registration in
                Contribution(
                    key: registration.key, metadata: registration.metadata,
                    contributor: Swift.type(of: component)
                ) {
                    unsafeDowncast(registration.build(component), to: Holder<Element>.self).value
                }
            }
        }
        // A parent registered after its child contributed can bring a key the child uses too.
        var owners: [String: Component.Type] = [:]
        for contribution in all {
            if let owner = owners.updateValue(contribution.contributor, forKey: contribution.key) {
                Diagnostics.duplicateContribution(
                    key: contribution.key, element: type, component: contribution.contributor, owner: owner,
                    file: #fileID, line: #line)
            }
        }
        return all
    }

    /// Builds every element contributed to the collection of `type`, in `contributions(of:)`'s
    /// order.
    ///
    /// - Parameter type: The element type of the collection.
    /// - Returns: The elements.
    public func all<Element>(_ type: Element.Type) -> [Element] {
        contributions(of: type).map { $0.resolve() }
    }

    /// Builds every element contributed to the collection of `type`, by key.
    ///
    /// - Parameter type: The element type of the collection.
    /// - Returns: The elements by the keys they were contributed under.
    public func map<Element>(_ type: Element.Type) -> [String: Element] {
        Dictionary(uniqueKeysWithValues: contributions(of: type).map { ($0.key, $0.resolve()) })
    }

    /// This component and its ancestors, farthest first, each once.
    private func contributingComponents() -> [Component] {
        var ordered: [Component] = []
        func visit(_ component: Component) {
            guard !ordered.contains(where: { $0 === component }) else { return }
            for parent in component.parents.all { visit(parent.component) }
            ordered.append(component)
        }
        visit(self)
        return ordered
    }
}

/// One contribution as a component keeps it.
struct Registration: @unchecked Sendable {
    // Immutable; `build` runs user code, never under a lock.
    let key: String
    let metadata: (any Sendable)?
    let build: @Sendable (Component) -> AnyObject

    init<Element>(key: String, metadata: (any Sendable)?, resolve: @escaping @Sendable (Component) -> Element)
    {
        self.key = key
        self.metadata = metadata
        build = { Holder(resolve($0)) }
    }
}
