extension Component {
    /// The component's parent of type `P`: a parent registered as `P`, or else the nearest
    /// ancestor that is a `P`.
    ///
    /// Declare one accessor per parent a narrower component needs:
    ///
    /// ```swift
    /// final class FeatureComponent: Component, @unchecked Sendable {
    ///     var app: AppComponent { parent() }
    /// }
    /// ```
    ///
    /// The search looks at the registered parents first, then at their ancestors, nearest first;
    /// at one distance, a parent registered as `P` wins over one that merely is a `P`. A missing
    /// parent stops the program with a message that names both components and this accessor's
    /// file and line, and shows the `.parent(_:as:)` call that fixes it.
    ///
    /// **Complexity:** a lookup in the component's directory, without a lock, for a parent registered
    /// as `P`; otherwise one search on the first call, which reuses the parents' own answers, and one
    /// lookup after it.
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The parent component.
    @inlinable @inline(__always)
    public func parent<P: Component>(file: StaticString = #fileID, line: UInt = #line) -> P {
        if let parent = liveMember(.parent, P.self) { return Erasure.component(parent, as: P.self) }
        return ancestor(file: file, line: line)
    }

    /// The component's nearest ancestor of type `P`, usually a protocol: how a component declared
    /// in a package of its own reaches the component it runs under, which that package cannot name.
    ///
    /// The package states what it needs from its host as a protocol, and the component that hosts it
    /// conforms:
    ///
    /// ```swift
    /// // In the Checkout package:
    /// public protocol CheckoutHost: AnyObject, Sendable {
    ///     func paymentsClient() -> PaymentsClient
    /// }
    ///
    /// public final class CheckoutComponent: Component, @unchecked Sendable {
    ///     var host: any CheckoutHost { ancestor() }
    /// }
    ///
    /// // In the app:
    /// extension AppComponent: CheckoutHost {
    ///     func paymentsClient() -> PaymentsClient { network.payments() }
    /// }
    ///
    /// let checkout = CheckoutComponent().parent(app)
    /// ```
    ///
    /// The search is that of ``parent(file:line:)``: the registered parents first, then their
    /// ancestors, nearest first. For a component class, prefer ``parent(file:line:)``, which the
    /// compiler checks is a component and which finds a registered parent without a search. A
    /// missing ancestor stops the program with a message that names both types and the parents
    /// registered.
    ///
    /// **Complexity:** one search on the first call, which reuses the parents' own answers; after
    /// it, a lookup in the directory, without a lock, and a cast to `P`.
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The nearest ancestor that is a `P`.
    @inlinable @inline(never) public func ancestor<P>(file: StaticString = #fileID, line: UInt = #line) -> P {
        // Also `parent()` when no parent is registered as `P`, specialized for `P` but a call of its
        // own, so that `parent()` inlines only the lookup of a registered parent. (Speed only.)
        checkNotDeinitializing(P.self, file: file, line: line)
        // The answer of an earlier search, or else a parent registered as `P`, which is that answer
        // once a search has kept one.
        if let kept = storage.withDirectory({ $0.member(.ancestor, P.self) }) { return kept.object as! P }
        if let parent = storage.withDirectory({ $0.member(.parent, P.self) }) { return parent.object as! P }
        return searchedAncestor(P.self, matching: { $0 is P }, file: file, line: line) as! P
    }

    /// Registers `parent` as a parent of this component, under its static type, or under `type`, for
    /// example a fake subclass in a test.
    ///
    /// ```swift
    /// let feature = FeatureComponent().parent(app)
    /// let tested = FeatureComponent().parent(FakeAppComponent(), as: AppComponent.self)
    /// ```
    ///
    /// The component keeps its parents alive; a parent never refers to its children. A component
    /// has at most one parent per type. Register parents when you create the component, before its
    /// first resolution: like ``module(_:file:line:)`` and ``overriding(_:with:file:line:)-(_,()->T,_,_)``, it
    /// configures the component it is called on and returns it, so that a component is configured in
    /// the expression that creates it.
    ///
    /// - Parameters:
    ///   - parent: The parent.
    ///   - type: The parent type that accessors ask for; leave the default, `parent`'s static type.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    /// - Returns: This component, for chaining.
    @discardableResult public func parent<P: Component>(
        _ parent: P, as type: P.Type = P.self, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { register(parent, as: type, file: file, line: line) }

    /// Registers the parent that `make` returns: `parent(_:as:file:line:)` with a closure.
    @available(*, deprecated, message: "pass the parent itself: `.parent(app)`")
    @discardableResult public func parent<P: Component>(
        _ make: () -> P, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { parent(make(), file: file, line: line) }

    /// Registers the parent that `make` returns as `type`: `parent(_:as:file:line:)` with a closure.
    @available(*, deprecated, message: "pass the parent itself: `.parent(FakeApp(), as: AppComponent.self)`")
    @discardableResult public func parent<P: Component>(
        _ type: P.Type, _ make: () -> P, file: StaticString = #fileID, line: UInt = #line
    ) -> Self { parent(make(), as: type, file: file, line: line) }

    /// The parents, in the order they were registered.
    var parentList: [Component] {
        storage.withDirectory { directory in directory.members(.parent).map { $0.object as! Component } }
    }

    /// Registers `parent` as `type`, for `parent(_:as:file:line:)`, and returns this component, for
    /// chaining; runs `afterAppending` once the parent is in the list, before the check for a cycle:
    /// a test hook, where tests hold two registrations so that both have appended before either
    /// checks.
    @discardableResult package func register(
        _ parent: Component, as type: Component.Type, afterAppending: () -> Void = {},
        file: StaticString = #fileID, line: UInt = #line
    ) -> Self {
        let parentType = Swift.type(of: parent)
        let ownType = Swift.type(of: self)
        checkType(parent, is: type, kind: "parent", file: file, line: line)
        if parent === self { Diagnostics.parentCycle(parentType, component: ownType, at: (file, line)) }
        // A component that is nobody's parent is nobody's ancestor, so giving it a parent cannot
        // close a cycle: only components with children walk the new parent's ancestors. Each side
        // marks the other before it appends, and reads its own mark after appending, under its own
        // lock (the marks are atomic read-modify-writes); a walk reads each component's parents under
        // that component's lock. So of two registrations that would close a cycle together, at least
        // one sees the other. A mark is never cleared, and every change of the word is a
        // read-modify-write: a mark found set by an acquiring load, which synchronizes with every
        // change before it, is as good as one set now, and the parent's word, which every child of a
        // server's component shares, is not written again.
        if parent.storage.word(.flags, { $0.acquired }) & ComponentStorage.hasChildren == 0 {
            parent.storage.setFlags(ComponentStorage.hasChildren)
        }
        let (recorders, isParent) = storage.withLock { state in
            state.parentsGivenAt = state.parentsGivenAt ?? (file, line)
            if state.hasSearchedParents { Diagnostics.lateParent(type, component: ownType, at: (file, line)) }
            if storage.withDirectory({ $0.member(.parent, type) }) != nil {
                Diagnostics.duplicateParent(type, component: ownType, at: (file, line))
            }
            storage.withDirectory { $0.add(parent, .parent, type, retired: &state.retired) }
            return (state.extras?.recorders ?? [], storage.setFlags(0) & ComponentStorage.hasChildren != 0)
        }
        afterAppending()
        if isParent && parent.selfAndAncestors().contains(where: { $0 === self }) {
            Diagnostics.parentCycle(parentType, component: ownType, at: (file, line))
        }
        for recorder in recorders { Component.watch(parent, andAncestorsExcept: [], for: recorder) }
        return self
    }

    /// The nearest ancestor that is a `type`, kept by an earlier call, or else found from this
    /// component's parents and their own answers, and kept for later calls; stops the program when
    /// there is none.
    ///
    /// `isMatch` runs during the search, with no lock held. (A test hook: tests register a parent
    /// from it, in the middle of a search.)
    @usableFromInline package func searchedAncestor(
        _ type: Any.Type, matching isMatch: (Component) -> Bool, file: StaticString, line: UInt
    ) -> Component {
        if let found = rankedAncestor(type, matching: isMatch) { return found.component }
        Diagnostics.missingParent(
            type, parentIsComponent: type is Component.Type, component: Swift.type(of: self),
            ancestors: selfAndAncestors().dropFirst().map { Swift.type(of: $0) },
            givenAt: storage.withLock { $0.parentsGivenAt }, overriding: OverrideCapture.current?.location,
            file: file, line: line)
    }

    /// The nearest ancestor that is a `type` (`isMatch` tells), with its rank, or nil; kept in each
    /// component it passes.
    ///
    /// The parents are walked without the lock, and the answer is kept under it, after which
    /// registering a parent stops the program (`hasSearchedParents`). A parent registered during the
    /// walk came before that and is allowed, but the walk may have missed it: when any member was
    /// added during the walk, the search starts again, so that no answer is kept that a registered
    /// parent would change.
    private func rankedAncestor(_ type: Any.Type, matching isMatch: (Component) -> Bool) -> FoundAncestor? {
        while true {
            if let kept = keptAncestor(type) { return kept }
            let (count, best) = storage.withDirectory { directory in
                let parents = directory.members(.parent)
                return (parents.entries.count, nearestAmong(parents, type, matching: isMatch))
            }
            let isCurrent = storage.withLock { state in
                guard storage.withDirectory({ $0.entries.count }) == count else { return false }
                // An answer of none is an answer too: a parent registered later could change it.
                state.hasSearchedParents = true
                guard let best, keptAncestor(type) == nil else { return true }
                storage.withDirectory {
                    $0.add(best.component, .ancestor, type, tag: best.rank, retired: &state.retired)
                }
                return true
            }
            // The answer kept, this search's or one that another kept first.
            if isCurrent { return keptAncestor(type) ?? best }
        }
    }

    /// The nearest ancestor that is a `type` among `parents` and, if none of them is one, among their
    /// ancestors, from their own answers.
    private func nearestAmong(
        _ parents: Directory.Members, _ type: Any.Type, matching isMatch: (Component) -> Bool
    ) -> FoundAncestor? {
        // What one parent step adds to a rank (see `FoundAncestor`).
        let step: UInt = 2
        // One step away. Of two answers as near, the earlier wins.
        var nearest: FoundAncestor?
        for (object, key) in parents {
            let rank = key == Directory.key(.parent, type) ? step : step + 1
            guard rank == step || isMatch(object as! Component) else { continue }
            if rank < nearest?.rank ?? .max { nearest = (object as! Component, rank) }
        }
        if nearest != nil { return nearest }
        // One step further than the parent that found it.
        for (object, _) in parents {
            guard let found = (object as! Component).rankedAncestor(type, matching: isMatch) else { continue }
            if found.rank + step < nearest?.rank ?? .max { nearest = (found.component, found.rank + step) }
        }
        return nearest
    }

    /// The ancestor that an earlier search for `type` found and kept, if any.
    private func keptAncestor(_ type: Any.Type) -> FoundAncestor? {
        storage.withDirectory { $0.member(.ancestor, type) }.map { ($0.object as! Component, $0.tag) }
    }
}

/// An ancestor that `parent()` found by searching, and its rank: twice how many parent steps away
/// it is, plus one unless it was registered as the type asked for, so that the lower the rank, the
/// better the answer, nearer, or as near and registered as the type asked for. The table of
/// ancestors keeps the component, with its rank in its entry's tag, so that remembering an answer
/// allocates nothing.
typealias FoundAncestor = (component: Component, rank: UInt)
