extension ResolutionContext {
    /// The instance of the `scoped` provider whose cell key is `key` in the resolution under way, if
    /// it has one: its own, or the async resolution's that it runs a part of, which it keeps from now
    /// on, in case that one ends first.
    func scopedInstance(_ key: CellKey, owner: AnyObject) -> AnyObject? {
        endWork |= EndWork.scopes
        if let index = scoped.indices.first(where: { scoped[$0].key == key }) { return scoped[index].value }
        if !hasChosenScopes {
            hasChosenScopes = true
            sharedScopes = TaskAgent.ofCurrentTask?.sharedScopes.flatMap { $0.hasEnded ? nil : $0 }
        }
        return nil
    }

    /// Which instance the resolution's `scoped` instances are built as in their cells, and the store
    /// that lists them: the async resolution's, or, for a resolution of the thread's own, a number of
    /// its own, and none. The number mixes the context's address with the count of the resolutions it
    /// ended (wrapping at 32,768), so it differs from those of the thread's other resolutions under
    /// way and of other threads'.
    var scopes: (instance: CellKey.Instance, store: ScopeStore?) {
        guard let sharedScopes else {
            // The context's address, mixed with the count of the resolutions it ended in bits 48 to 62.
            let count = (endedResolutions & 0x7FFF) << 48
            return (.threadResolution(UInt64(UInt(bitPattern: ObjectIdentifier(self))) ^ count), nil)
        }
        return (sharedScopes.id, sharedScopes)
    }
}
