extension AnyModule {
    /// The cell of `keyValue`, a key of the `single(key:)` provider whose key is `key` and whose step
    /// is `step`, made on first use. Runs the key's `hash(into:)` and `==` with no lock held, as a
    /// step of their own, so that a key whose hashing calls its provider again is caught instead of
    /// recursing without end. A key added for an equal key meanwhile shows up as a new version of the
    /// keys, and the comparison is made again. Stops the program if another provider with the same
    /// key caches with another strategy.
    func keyedCell(_ keyValue: AnyHashable, key: ProviderKey, step: Step, context: ResolutionContext)
        -> CellReference
    {
        let hashing = step.owned(by: step.owner, kind: .keyHashing)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: step) }
        context.enter(hashing)
        defer { _ = context.leave() }
        let (provider, hash) = (cellKey(key), keyValue.hashValue)
        while true {
            let (known, first) = storage.withLock { state in
                (state.table.keys(of: provider, hash: hash), state.table.strategy(at: provider))
            }
            if let first, first != step.strategy { Diagnostics.providerClash(step, first: first) }
            if let found = known.keys.first(where: { $0.key == keyValue }) {
                return CellReference(host: storage, key: provider.forKey(found.serial))
            }
            let added = storage.withLock {
                $0.table.add(
                    keyValue, hash: hash, of: provider, strategy: step.strategy, ownerType: step.subject,
                    ifUnchangedSince: known.version)
            }
            if let added { return CellReference(host: storage, key: added) }
        }
    }
}
