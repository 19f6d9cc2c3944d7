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

    /// The number under which the resolution's `scoped` instances are built in their cells, and the
    /// store that lists them: the async resolution's, or, for a resolution of the thread's own, a
    /// number of its own (told from a store's by its top bit) and none.
    var scopes: (id: UInt64, store: ScopeStore?) {
        // The address takes the low 48 bits, the count bits 48 to 62, and bit 63 stays set. (`|` and
        // `^` group left to right, hence the parentheses.)
        (
            sharedScopes?.id ?? 1 << 63
                | (UInt64(UInt(bitPattern: ObjectIdentifier(self))) ^ (endedResolutions & 0x7FFF) << 48),
            sharedScopes
        )
    }
}
