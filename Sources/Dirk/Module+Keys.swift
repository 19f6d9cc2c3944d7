extension AnyModule {
    /// The cell of `keyValue`, a key of the `single(key:)` provider whose key is `key` and whose step
    /// is `step`, made on first use. Runs the key's `hash(into:)` and `==` with no lock held, as a
    /// step of their own, so that a key whose hashing calls its provider again is caught instead of
    /// recursing without end. A key added for an equal key meanwhile shows up as a new version of the
    /// keys, and the comparison is made again.
    func keyedCell(_ keyValue: AnyHashable, key: ProviderKey, step: Step, context: ResolutionContext)
        -> CellReference
    {
        let hashing = Step(
            .keyHashing, strategy: step.strategy, owner: step.owner, component: step.component,
            site: step.site, type: step.type, subject: step.subject, componentType: step.componentType)
        if context.enclosing(hashing) != nil { Diagnostics.keyReentered(at: step) }
        context.enter(hashing)
        defer { _ = context.leave() }
        let (provider, hash) = (cellKey(key), keyValue.hashValue)
        while true {
            let (candidates, version) = storage.keys(of: provider, hash: hash, step: step)
            if let found = candidates.first(where: { $0.key == keyValue }) {
                return CellReference(
                    host: storage,
                    key: CellKey(owner: provider.owner, provider: key, instance: .key(found.serial)))
            }
            if let added = storage.withLock({
                $0.table.add(
                    keyValue, hash: hash, of: provider, strategy: step.strategy, ownerType: step.subject,
                    ifUnchangedSince: version)
            }) {
                return CellReference(host: storage, key: added)
            }
        }
    }
}

extension ComponentStorage {
    /// The keys of the `single(key:)` provider whose cell key is `provider` and whose step is
    /// `step` that hash to `hash`, and their version; stops the program if another provider with the
    /// same key caches with another strategy.
    func keys(of provider: CellKey, hash: Int, step: Step) -> (keys: [CellTable.KeyEntry], version: UInt64) {
        let (keys, first) = withLock { state in
            (state.table.keys(of: provider, hash: hash), state.table.strategy(at: provider))
        }
        if let first, first != step.strategy { Diagnostics.providerClash(step, first: first) }
        return keys
    }
}
