extension Component {
    /// The component's parent of type `P`: a parent registered as `P`, or else the nearest
    /// ancestor that is a `P`, searching the registered parents first, then their parents.
    ///
    /// Declare one accessor per parent a narrower component needs:
    ///
    /// ```swift
    /// final class FeatureComponent: Component, @unchecked Sendable {
    ///     var app: AppComponent { parent() }
    /// }
    /// ```
    ///
    /// A missing parent stops the program with a message that names both components and shows
    /// the `.parent { }` call that fixes it.
    ///
    /// **Complexity:** one lock-free table lookup after the first call.
    ///
    /// - Returns: The parent component.
    @inlinable
    public func parent<P: Component>(file: StaticString = #fileID, line: UInt = #line) -> P {
        let parent =
            parents.parent(registeredAs: P.self)
            ?? ancestorsByType.value(for: LookupKey(type: P.self), as: Component.self)
            ?? searchAncestors(for: P.self, file: file, line: line)
        // A cast of the address, as in `module()`: the caller's optimizer can drop the retain.
        return unsafeBitCast(parent.toOpaque(), to: P.self)
    }

    /// Registers the component that `make` returns as a parent, under its static type.
    ///
    /// ```swift
    /// let feature = FeatureComponent().parent { app }
    /// ```
    ///
    /// The component keeps its parents alive; a parent never refers to its children. A component
    /// has at most one parent per type. Register parents before the first resolution.
    ///
    /// - Parameter make: Returns the parent; called once, immediately.
    /// - Returns: This component, for chaining.
    @discardableResult
    public func parent<P: Component>(file: StaticString = #fileID, line: UInt = #line, _ make: () -> P)
        -> Self
    {
        register(parent: make(), as: P.self, file: file, line: line)
        return self
    }

    /// Registers the component that `make` returns as the parent of type `type`, for example a
    /// fake subclass in a test.
    ///
    /// ```swift
    /// let feature = FeatureComponent().parent(AppComponent.self) { FakeAppComponent() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The parent type that accessors ask for.
    ///   - make: Returns the parent; called once, immediately.
    /// - Returns: This component, for chaining.
    @discardableResult
    public func parent<P: Component>(
        _ type: P.Type, file: StaticString = #fileID, line: UInt = #line, _ make: () -> P
    ) -> Self {
        register(parent: make(), as: type, file: file, line: line)
        return self
    }
}

extension Component {
    private func register(parent: Component, as type: Component.Type, file: StaticString, line: UInt) {
        if parent === self || parent.hasAncestor(self) {
            Diagnostics.parentCycle(
                Swift.type(of: parent), component: Swift.type(of: self), file: file, line: line)
        }
        withStateLock { state in
            if state.hasSearchedParents {
                Diagnostics.lateParent(type, component: Swift.type(of: self), file: file, line: line)
            }
            if parents.parent(registeredAs: type) != nil {
                Diagnostics.duplicateParent(type, component: Swift.type(of: self), file: file, line: line)
            }
            parents.append(parent, as: type)
        }
        // Two threads that made two components each other's parent at once both pass the first
        // check; each finds the cycle now that both links exist.
        if parent.hasAncestor(self) {
            Diagnostics.parentCycle(
                Swift.type(of: parent), component: Swift.type(of: self), file: file, line: line)
        }
    }

    /// Whether `candidate` is among the ancestors. A walk deeper than any real hierarchy means the
    /// parents form a cycle, which counts as finding it.
    private func hasAncestor(_ candidate: Component, depth: Int = 0) -> Bool {
        guard depth < 1_000 else { return true }
        if parents.isEmpty { return false }
        for parent in parents.all {
            if parent.component === candidate
                || parent.component.hasAncestor(candidate, depth: depth + 1)
            {
                return true
            }
        }
        return false
    }

    /// Searches the ancestors level by level, nearest first; at each level a parent registered
    /// as `P` wins over one that merely is a `P`. Caches the answer, which keeps it alive for the
    /// component's lifetime, and returns it unretained.
    @usableFromInline
    func searchAncestors<P: Component>(
        for type: P.Type, file: StaticString, line: UInt
    ) -> Unmanaged<Component> {
        var visited: Set<ObjectIdentifier> = []
        var level = parents.all
        while !level.isEmpty {
            let found =
                level.first { ObjectIdentifier($0.type) == ObjectIdentifier(type) }?.component
                ?? level.lazy.compactMap { $0.component as? P }.first
            if let found {
                return withStateLock { state in
                    state.hasSearchedParents = true
                    if let cached = ancestorsByType.value(for: LookupKey(type: type), as: Component.self) {
                        return cached
                    }
                    ancestorsByType.insert(found, for: LookupKey(type: type))
                    return .passUnretained(found)
                }
            }
            level = level.filter { visited.insert(ObjectIdentifier($0.component)).inserted }
                .flatMap { $0.component.parents.all }
        }
        Diagnostics.missingParent(
            type, component: Swift.type(of: self), registered: parents.all.map(\.type),
            file: file, line: line)
    }
}
