/// One element that a component contributes to a collection: its key, its metadata, and how to
/// build it, listed without building it.
///
/// Components contribute elements with ``Component/contribute(_:key:metadata:_:file:line:)``;
/// ``Component/contributions(of:file:line:)`` lists a component's and its ancestors'
/// contributions, so that a caller can choose by key or metadata and then build only the chosen
/// ones with ``resolve(file:line:)``.
///
/// **Lifetime:** a contribution refers to the component that contributed it without keeping it
/// alive, as handles do, so that an instance the component caches may hold contributions without
/// forming a retain cycle. Resolving one after that component was released stops the program with
/// a message that says so.
public struct Contribution<Element>: Sendable {
    /// The key the element was contributed under, unique among the collection's contributions.
    public let key: String
    /// What the contributing component said about the element, for filtering before building it.
    public let metadata: (any Sendable)?
    /// The type of the component that contributed it.
    public let contributor: Component.Type
    /// Builds the element, or stops the program, for a call at the file and line it is given,
    /// if the contributing component is gone.
    fileprivate let build: @Sendable (StaticString, UInt) -> Element

    /// The metadata, if it is a `Metadata`.
    ///
    /// - Parameter type: The type the metadata is expected to have.
    /// - Returns: The metadata, or nil when it has another type or there is none.
    public func metadata<Metadata>(as type: Metadata.Type) -> Metadata? { metadata as? Metadata }

    /// Builds the element now, through the provider it was contributed with, with that provider's
    /// strategy.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    /// - Returns: The element.
    public func resolve(file: StaticString = #fileID, line: UInt = #line) -> Element { build(file, line) }
}

extension _ModuleOwner where Self: Component {
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
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func contribute<Element>(
        _ type: Element.Type, key: String, metadata: (any Sendable)? = nil,
        _ resolve: @escaping @Sendable (Self) -> Element, file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        addContribution(type, key: key, metadata: metadata, file: file, line: line, resolve)
        return self
    }

    /// `contribute(_:key:metadata:_:file:line:)`; `beforeLocking` runs between the check of the
    /// collection's keys and the lock under which the component checks its own again and adds the
    /// contribution. A test hook: another thread's contribution can come in between.
    package func addContribution<Element>(
        _ type: Element.Type, key: String, metadata: (any Sendable)?, file: StaticString, line: UInt,
        beforeLocking: () -> Void = {}, _ resolve: @escaping @Sendable (Self) -> Element
    ) {
        let (ownType, elementType) = (Swift.type(of: self), ObjectIdentifier(type))
        var owner = contributions(of: type, file: file, line: line).first { $0.key == key }?.contributor
        if owner == nil {
            // Only this component builds its own contributions, so the component is `self`.
            let record: ContributionRecord = (key, metadata, { resolve($0 as! Self) })
            beforeLocking()
            // The component's own keys are checked again under the lock that guards them: another
            // thread may have contributed the same key since the check above.
            owner = storage.withLock { state in
                let isTaken = state.extras?.contributions[elementType]?.contains { $0.key == key } ?? false
                if !isTaken { state.withExtras { $0.contributions[elementType, default: []].append(record) } }
                return isTaken ? ownType : nil
            }
        }
        if let owner {
            Diagnostics.duplicateContribution(
                key: key, element: type, component: ownType, owner: owner, file: file, line: line)
        }
    }
}

extension Component {
    /// Every contribution to the collection of `type`: the ancestors' first, each ancestor's after
    /// its own parents' and the parents taken in the order they were registered, then this
    /// component's; each component's in the order it made them. Nothing is built.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The contributions, to filter by key or metadata and resolve.
    public func contributions<Element>(
        of type: Element.Type, file: StaticString = #fileID, line: UInt = #line
    ) -> [Contribution<Element>] {
        let elementType = ObjectIdentifier(type)
        // This component and its ancestors, each once and after its own parents, parents in the order
        // they were registered.
        var ordered: [Component] = []
        func visit(_ component: Component) {
            guard !ordered.contains(where: { $0 === component }) else { return }
            for parent in component.parentList { visit(parent) }
            ordered.append(component)
        }
        visit(self)
        let all = ordered.flatMap { component in
            // Refers to the component's storage, not to the component: see `Contribution`.
            let (storage, owner) = (SelfSynchronized(object: component.storage), Swift.type(of: component))
            return component.storage.withLock { $0.extras?.contributions[elementType] ?? [] }.map { record in
                Contribution(key: record.key, metadata: record.metadata, contributor: owner) { file, line in
                    guard let component = storage.object.component else {
                        Diagnostics.contributionAfterRelease(
                            key: record.key, element: Element.self, component: owner, file: file, line: line)
                    }
                    return record.build(component) as! Element
                }
            }
        }
        // A parent registered after its child contributed can bring a key the child uses too.
        var owners: [String: Component.Type] = [:]
        for contribution in all {
            if let owner = owners.updateValue(contribution.contributor, forKey: contribution.key) {
                Diagnostics.duplicateContributionListed(
                    key: contribution.key, element: type, first: owner, second: contribution.contributor,
                    file: file, line: line)
            }
        }
        return all
    }

    /// Builds every element contributed to the collection of `type`, in the order of
    /// ``contributions(of:file:line:)``.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The elements.
    public func resolveContributions<Element>(
        of type: Element.Type, file: StaticString = #fileID, line: UInt = #line
    ) -> [Element] {
        contributions(of: type, file: file, line: line).map { $0.resolve(file: file, line: line) }
    }

    /// Builds every element contributed to the collection of `type`, by the keys they were
    /// contributed under.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The elements by key.
    public func resolveContributionsByKey<Element>(
        of type: Element.Type, file: StaticString = #fileID, line: UInt = #line
    ) -> [String: Element] {
        let all = contributions(of: type, file: file, line: line)
        return Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0.resolve(file: file, line: line)) })
    }
}

/// One contribution as a component keeps it: its key, its metadata, and how it builds the element
/// from the contributing component, which runs user code, never under a lock.
typealias ContributionRecord = (key: String, metadata: (any Sendable)?, build: @Sendable (Component) -> Any)
