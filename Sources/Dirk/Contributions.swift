/// One element that a component contributes to a collection: its key, its metadata, and how to
/// build it, listed without building it.
///
/// Components contribute elements with ``Component/contribute(_:key:metadata:_:file:line:)``;
/// ``Component/contributions(of:keyedBy:file:line:)`` lists a component's and its ancestors'
/// contributions, so that a caller can choose by key or metadata and then build only the chosen
/// ones with ``resolve(file:line:)``. A collection is its element type and its key type: `String`
/// keys unless the contributions say otherwise (``Contribution``), or any `Hashable` and `Sendable`
/// type, such as an enum of screens or routes.
///
/// **Lifetime:** a contribution refers to the component that contributed it without keeping it
/// alive, as handles do, so that an instance the component caches may hold contributions without
/// forming a retain cycle. Resolving one after that component was released stops the program with
/// a message that says so.
public struct KeyedContribution<Key: Hashable & Sendable, Element>: Sendable {
    /// The key the element was contributed under, unique among the collection's contributions.
    public let key: Key
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
    /// strategy. An element contributed with ``Component/contributeOnMainActor(_:key:metadata:_:file:line:)``
    /// is built on the main actor, and resolving it on another thread stops the program.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for messages; leave the default.
    ///   - line: The caller's line, for messages; leave the default.
    /// - Returns: The element.
    public func resolve(file: StaticString = #fileID, line: UInt = #line) -> Element { build(file, line) }
}

/// A contribution to a collection whose keys are strings, the usual kind: see ``KeyedContribution``.
public typealias Contribution<Element> = KeyedContribution<String, Element>

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
    /// The key may be of any `Hashable` and `Sendable` type, as Dagger's map keys are: an enum of
    /// screens, `.contribute(Screen.self, key: Route.settings) { ... }`, makes the collection of
    /// `Screen` keyed by `Route`, which ``contributions(of:keyedBy:file:line:)`` reads with
    /// `keyedBy: Route.self`. A collection is its element type and its key type: contributions under
    /// `String` keys and under `Route` keys are two collections.
    ///
    /// A child's contributions add to its parents' and never replace them: a key already used in
    /// the collection, by this component or an ancestor, stops the program, at `file` and `line`. A
    /// helper that contributes for its callers takes their place and passes it on, so that the
    /// message points at the caller:
    ///
    /// ```swift
    /// extension AppComponent {
    ///     func addTab(_ route: Route, file: StaticString = #fileID, line: UInt = #line) -> AppComponent {
    ///         contribute(Screen.self, key: route, { $0.screens.screen(route) }, file: file, line: line)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - key: Identifies the element within the collection.
    ///   - metadata: Anything that helps choose elements without building them.
    ///   - resolve: Builds the element from this component, usually by calling a provider.
    ///   - file: The call's file, for messages; leave the default, or pass a helper's caller's.
    ///   - line: The call's line, for messages; leave the default, or pass a helper's caller's.
    /// - Returns: This component, for chaining.
    @discardableResult public func contribute<Element, Key: Hashable & Sendable>(
        _ type: Element.Type, key: Key, metadata: (any Sendable)? = nil,
        _ resolve: @escaping @Sendable (Self) -> Element, file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        addContribution(type, key: key, metadata: metadata, file: file, line: line) { component, _, _ in
            resolve(component as! Self)
        }
    }

    /// Contributes an element built on the main actor, such as a tab's or a settings screen's view
    /// model made by a ``MainActorModule``: ``contribute(_:key:metadata:_:file:line:)`` with a
    /// main-actor closure.
    ///
    /// ```swift
    /// app.contributeOnMainActor(TabItem.self, key: Tab.home) { $0.screens.homeTab() }
    /// let tabs = app.resolveContributionsByKey(of: TabItem.self, keyedBy: Tab.self)  // on the main actor
    /// ```
    ///
    /// The element joins the same collection as the others of its type and key type, and is built
    /// only when someone resolves it, which must happen on the main actor: resolving it on another
    /// thread stops the program with a message that says so.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - key: Identifies the element within the collection.
    ///   - metadata: Anything that helps choose elements without building them.
    ///   - resolve: Builds the element from this component, on the main actor.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @MainActor @discardableResult public func contributeOnMainActor<Element, Key: Hashable & Sendable>(
        _ type: Element.Type, key: Key, metadata: (any Sendable)? = nil,
        _ resolve: @escaping @MainActor (Self) -> Element, file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        addContribution(type, key: key, metadata: metadata, file: file, line: line) { component, file, line in
            if !MainActorCheck.isOnMainActor {
                Diagnostics.mainActorContributionOffMainThread(
                    key: key, element: Element.self, component: Self.self, at: (file, line))
            }
            return MainActor.assumeIsolated { MainActorBound(resolve(component as! Self)) }.stored
        }
    }

    /// `contribute(_:key:metadata:_:file:line:)`; `beforeLocking` runs between the check of the
    /// collection's keys and the lock under which the component checks its own again and adds the
    /// contribution. A test hook: another thread's contribution can come in between.
    ///
    /// - Returns: This component, for chaining.
    @discardableResult package func addContribution<Element, Key: Hashable & Sendable>(
        _ type: Element.Type, key: Key, metadata: (any Sendable)?, file: StaticString, line: UInt,
        beforeLocking: () -> Void = {}, _ build: @escaping @Sendable (Component, StaticString, UInt) -> Any
    ) -> Self {
        let ownType = Swift.type(of: self)
        let collection = ObjectIdentifier(KeyedContribution<Key, Element>.self)
        let listed = contributions(of: type, keyedBy: Key.self, file: file, line: line)
        var owner = listed.first { $0.key == key }?.contributor
        if owner == nil {
            let record: ContributionRecord = (key, metadata, build)
            beforeLocking()
            // The component's own keys are checked again under the lock that guards them: another
            // thread may have contributed the same key since the check above.
            owner = storage.withLock { state in
                let isTaken =
                    state.extras?.contributions[collection]?.contains { $0.key == AnyHashable(key) } ?? false
                if !isTaken { state.withExtras { $0.contributions[collection, default: []].append(record) } }
                return isTaken ? ownType : nil
            }
        }
        if let owner {
            Diagnostics.duplicateContribution(
                key: key, element: type, component: ownType, owner: owner, at: (file, line))
        }
        return self
    }
}

extension Component {
    /// Every contribution to the collection of `type` keyed by `Key`: the ancestors' first, each
    /// ancestor's after its own parents' and the parents taken in the order they were registered,
    /// then this component's; each component's in the order it made them. Nothing is built.
    ///
    /// ```swift
    /// let tabs = app.contributions(of: TabItem.self, keyedBy: Tab.self).filter { $0.key != .debug }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - keyType: The type of the collection's keys; leave it out for strings.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The contributions, to filter by key or metadata and resolve.
    public func contributions<Element, Key: Hashable & Sendable>(
        of type: Element.Type, keyedBy keyType: Key.Type = String.self, file: StaticString = #fileID,
        line: UInt = #line
    ) -> [KeyedContribution<Key, Element>] {
        let collection = ObjectIdentifier(KeyedContribution<Key, Element>.self)
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
            // Refers to the component's storage, not to the component: see `KeyedContribution`.
            let storage = Locked(buffer: component.storage)
            let owner = Swift.type(of: component)
            return component.storage.withLock { $0.extras?.contributions[collection] ?? [] }.map { record in
                let key = record.key as! Key
                let build = record.build
                return KeyedContribution(key: key, metadata: record.metadata, contributor: owner) {
                    file, line in
                    guard let component = storage.buffer.component else {
                        Diagnostics.contributionAfterRelease(
                            key: key, element: Element.self, component: owner, at: (file, line))
                    }
                    return build(component, file, line) as! Element
                }
            }
        }
        // A parent registered after its child contributed can bring a key the child uses too.
        var owners: [Key: Component.Type] = [:]
        for contribution in all {
            if let owner = owners.updateValue(contribution.contributor, forKey: contribution.key) {
                Diagnostics.duplicateContributionListed(
                    key: contribution.key, element: type, first: owner,
                    second: contribution.contributor, at: (file, line))
            }
        }
        return all
    }

    /// Builds every element contributed to the collection of `type` keyed by `Key`, in the order of
    /// ``contributions(of:keyedBy:file:line:)``.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - keyType: The type of the collection's keys; leave it out for strings.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The elements.
    public func resolveContributions<Element, Key: Hashable & Sendable>(
        of type: Element.Type, keyedBy keyType: Key.Type = String.self, file: StaticString = #fileID,
        line: UInt = #line
    ) -> [Element] {
        contributions(of: type, keyedBy: keyType, file: file, line: line).map {
            $0.resolve(file: file, line: line)
        }
    }

    /// Builds every element contributed to the collection of `type` keyed by `Key`, by the keys they
    /// were contributed under.
    ///
    /// - Parameters:
    ///   - type: The element type of the collection.
    ///   - keyType: The type of the collection's keys; leave it out for strings.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: The elements by key.
    public func resolveContributionsByKey<Element, Key: Hashable & Sendable>(
        of type: Element.Type, keyedBy keyType: Key.Type = String.self, file: StaticString = #fileID,
        line: UInt = #line
    ) -> [Key: Element] {
        let all = contributions(of: type, keyedBy: keyType, file: file, line: line)
        return Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0.resolve(file: file, line: line)) })
    }
}

/// One contribution as a component keeps it: its key, its metadata, and how it builds the element
/// from the contributing component, for a resolution at a file and line, which runs user code, never
/// under a lock.
typealias ContributionRecord = (
    key: AnyHashable, metadata: (any Sendable)?, build: @Sendable (Component, StaticString, UInt) -> Any
)
