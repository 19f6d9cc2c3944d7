extension ResolutionContext {
    /// The store of the resolution's `scoped` instances, chosen on its first `scoped` call and kept
    /// until it ends: the store of the async resolution that it runs a part of, while that one is
    /// under way, or the thread's own, which keeps no cell past its build (see `ScopeStore`).
    var scope: ScopeStore {
        if let store = record.scope { return store }
        let shared = TaskAgent.ofCurrentTask?.sharedScopes
        record.scope = shared ?? ownScope
        record.ownsScope = shared == nil
        return record.scope!
    }
}
