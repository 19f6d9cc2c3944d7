extension ResolutionContext {
    /// The instance of the `scoped` provider whose own cell key is `key` that the resolution under way
    /// took already, if any: a synchronous resolution keeps each it took until it ends, even when the
    /// scope it shares ends first (a `Task { }` that outlives the async resolution that started it).
    func scopedInstance(_ key: CellKey) -> AnyObject? {
        endWork |= EndWork.scopes
        return scoped.first { $0.key == key }?.value
    }

    /// The store of the resolution's `scoped` instances, chosen on its first `scoped` call, kept until
    /// it ends: the store of the async resolution that it runs a part of, while that one is under
    /// way, or one of its own.
    var scope: ScopeStore {
        if let scopeStore { return scopeStore }
        endWork |= EndWork.scopes
        let shared = TaskAgent.ofCurrentTask?.sharedScopes
        ownsScope = shared == nil
        let store = shared ?? ScopeStore()
        scopeStore = store
        return store
    }
}

/// A `scoped` instance that a synchronous resolution took: the provider's own cell key, the
/// instance, and the provider's module, which the resolution keeps alive so that no other module
/// takes its address, and key, meanwhile.
typealias ScopedInstance = (key: CellKey, value: AnyObject, owner: AnyObject)
