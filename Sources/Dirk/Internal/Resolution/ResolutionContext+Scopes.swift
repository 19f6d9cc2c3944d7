extension ResolutionContext {
    /// The store of the resolution's `scoped` instances, chosen on its first `scoped` call and kept
    /// until it ends: the store of the async resolution that it runs a part of, while that one is
    /// under way, or the thread's own, opened for this resolution.
    var scope: ScopeStore {
        if let store = record.scope { return store }
        if let shared = TaskAgent.ofCurrentTask?.sharedScopes {
            record.scope = shared
            record.ownsScope = false
        } else {
            record.scope = ownScope
            record.ownsScope = true
        }
        return record.scope!
    }
}
