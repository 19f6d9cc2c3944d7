/// A `scoped` provider that a module without slots called, which the module's component records
/// in place of the module's slots until the module makes them (see `AnyModule.resolveScoped`): for
/// the message of a provider with another strategy at the same key, and for insight.
///
/// The common case it serves: a request's module whose only provider that keeps a record is one
/// `scoped` provider, called once per request. Slots made for that one call cost an allocation, a
/// lock and their release, about 740 instructions of `request`'s 6,287. (Speed only.)
struct ScopedMark {
    /// The module, compared only: a module that goes before its component clears its mark, so no
    /// other module can take its address while the mark is there.
    let module: ObjectIdentifier
    /// The module's type, which names the provider.
    let moduleType: Any.Type
    /// The provider.
    let key: ProviderKey
}

extension AnyModule {
    /// Records in the component that this module's `scoped` provider at `key` was called, in
    /// place of the module's slots. Only the first such call among the component's modules
    /// records, while the module has no slots and nobody watches the component (no trace,
    /// recording or override being set up, which need the slots); every other call takes the
    /// pipeline, which makes the slots, and they take the mark.
    ///
    /// - Returns: Whether the call may resolve without the module's slots.
    func marksScopedProvider(at key: ProviderKey) -> Bool {
        let core = componentCore
        let module = ObjectIdentifier(self)
        let moduleType = type(of: self)
        return core.withStateUnlessReleased { state in
            // Under the lock that makes slots publish and observers change.
            guard state.scopedMark == nil, !publishedSlots.isPublished, core.observers == 0 else {
                return false
            }
            state.scopedMark = ScopedMark(module: module, moduleType: moduleType, key: key)
            hasScopedMark = true
            return true
        } ?? false
    }
}
