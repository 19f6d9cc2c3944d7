import CDirk

/// Everything a module keeps for its providers: one slot per provider, in a table read without a
/// lock, plus the counters that send provider calls to the slow path.
///
/// A provider's slot is made on its first call and kept for the module's lifetime. It is the
/// provider's cache cell (`single`, `weak`, `async single`: a `OnceCell`; `single(key:)`: a
/// `KeyedCells`) or, for a `scoped` provider, which caches nothing in the module, the shared
/// `ProviderMarker.scoped`. A `transient` keeps no slot. The table entry's
/// tag is the provider's strategy, checked before a slot is used as a cell of that strategy.
///
/// A module makes its slots on the first call that needs them (`AnyModule.slots`): a module whose
/// providers are all transients never does. The component the module belongs to also holds this object, so that `reset()` and the component's
/// release reach every cache without holding the module.
@usableFromInline package final class ProviderSlots: Locked<ProviderSlots.State> {
    // Shared between threads, though `ManagedBuffer` does not let it say so. The state is guarded
    // by the lock of `Locked`. The extra words are atomics: `attention`, `observers`,
    // `hasOverrides`, then the table, which is written only while holding the lock.

    @usableFromInline package struct State {
        /// The module's type, which names its providers.
        let moduleType: Any.Type
        /// The type of the component the module belongs to.
        let componentType: Any.Type
        /// Factories that replace the module's providers (`Component.overriding`), by key.
        var overrides: [ProviderKey: OverrideEntry] = [:]
    }

    @inlinable static var attentionWord: Int { 0 }
    @inlinable static var observersWord: Int { 1 }
    @inlinable static var overridesWord: Int { 2 }
    @inlinable static var tableWord: Int { 3 }
    /// How many slots the module keeps before it allocates a table for more.
    @inlinable static var inlineSlots: Int { 4 }

    /// Slots for a module of type `moduleType` of a `componentType`.
    package static func make(moduleType: Any.Type, componentType: Any.Type) -> ProviderSlots {
        let slots = make(
            State(moduleType: moduleType, componentType: componentType),
            extraWords: tableWord + PublishedTable<ProviderKey, AnyObject>.wordCount(inline: inlineSlots))
        slots.extraWords.initialize(repeating: 0, count: tableWord)
        slots.table.initialize()
        return slots
    }

    deinit {
        table.destroy()
    }

    /// One slot per provider that has been called, except transients, tagged with the strategy
    /// whose policy made it.
    @inlinable var table: PublishedTable<ProviderKey, AnyObject> {
        PublishedTable(words: extraWords + Self.tableWord, inlineCapacity: Self.inlineSlots)
    }

    // MARK: Attention

    /// Fresh requests under way plus observers of the module's providers: while it is zero, a
    /// cached `single` takes its shortest path.
    @inlinable
    var attention: UInt { dirk_load_relaxed(extraWords + Self.attentionWord) }

    /// Adds `delta`, which may be negative, to the fresh requests under way on the module.
    func addFreshRequests(_ delta: Int) {
        _ = dirk_fetch_add_relaxed(extraWords + Self.attentionWord, UInt(bitPattern: delta))
    }

    /// Adds `delta`, which may be negative, to the module's observers.
    func addObservers(_ delta: Int) {
        _ = dirk_fetch_add_relaxed(extraWords + Self.observersWord, UInt(bitPattern: delta))
        _ = dirk_fetch_add_relaxed(extraWords + Self.attentionWord, UInt(bitPattern: delta))
    }

    /// Whether anyone observes the module's providers: a trace, recording, or an override being
    /// set up.
    @inlinable var isObserved: Bool { dirk_load_relaxed(extraWords + Self.observersWord) != 0 }

    /// Whether any provider of the module is overridden.
    @inlinable var hasOverrides: Bool { dirk_load_relaxed(extraWords + Self.overridesWord) != 0 }

    // MARK: Slots

    /// The object cached by the `single` or async `single` (`strategy`) whose key is `key`, if its
    /// slot exists and holds one.
    @inlinable @inline(__always)
    func readyObject(for key: ProviderKey, strategy: ProviderStrategy) -> AnyObject? {
        // A slot tagged `single` or `asyncSingle` is a `OnceCell`: the tag decides the class.
        table.withValue(for: key, tagged: UInt(strategy.rawValue), as: OnceCell.self) { $0.readyObject }
            ?? nil
    }

    /// Runs `body` with the slot of the provider whose key is `key`, made by `make` on its first
    /// call, lent without a reference count of its own: the table keeps every slot for as long as
    /// these slots exist, and the caller holds the module, which holds them. Stops the program
    /// when another provider with the same key uses another strategy.
    package func withSlot<Slot: AnyObject, Result>(
        for key: ProviderKey, strategy: ProviderStrategy, site: ProviderSite, as type: Slot.Type,
        make: () -> Slot, _ body: (Slot) throws -> Result
    ) rethrows -> Result {
        let tag = UInt(strategy.rawValue)
        if table.entry(for: key) == nil {
            withLock { _ in if table.entry(for: key) == nil { table.insert(make(), tag: tag, for: key) } }
        }
        // Same tag and same key, which includes the return type: the same class of slot.
        guard let result = try table.withValue(for: key, tagged: tag, as: Slot.self, body) else {
            clash(first: self.strategy(at: key), second: strategy, site: site)
        }
        return result
    }

    /// The slot of the provider whose key is `key`, made by `make` on its first call; see
    /// `withSlot(for:strategy:site:as:make:_:)`.
    func slot<Slot: AnyObject>(
        for key: ProviderKey, strategy: ProviderStrategy, site: ProviderSite, make: () -> Slot
    ) -> Slot {
        withSlot(for: key, strategy: strategy, site: site, as: Slot.self, make: make) { $0 }
    }

    /// Stops the program: two providers at `site`, one of each strategy, would share one key. Call
    /// it without holding the lock, which it takes to read the slots' state for the message.
    @usableFromInline func clash(first: ProviderStrategy?, second: ProviderStrategy, site: ProviderSite)
        -> Never
    {
        let (moduleType, componentType) = types
        Diagnostics.providerClash(
            "\(moduleType).\(site.function)", component: componentType, first: first?.name ?? "?",
            second: second.name, site: site)
    }

    /// Calls `body` with every slot: its strategy, the provider's key and the slot. Slots
    /// made meanwhile may be missed.
    func forEachSlot(_ body: (ProviderStrategy, ProviderKey, AnyObject) -> Void) {
        table.forEachEntry { slot, tag, key in
            body(ProviderStrategy(rawValue: UInt8(tag)) ?? .none, key, slot)
        }
    }

    /// The module's type and its component's type.
    var types: (module: Any.Type, component: Any.Type) {
        withLock { ($0.moduleType, $0.componentType) }
    }

    // MARK: Overrides

    /// The factory that replaces the provider at `key`, a provider of `strategy`, if one does. An
    /// override set up for a provider of another strategy at the same key, which only generated code
    /// can give two providers, is that provider's alone.
    @usableFromInline
    package func override(for key: ProviderKey, strategy: ProviderStrategy) -> AnyObject? {
        withLock { $0.overrides[key].flatMap { $0.strategy == strategy ? $0.factory : nil } }
    }

    /// The factories that replace providers whose keys `matches` accepts, for messages.
    package func overrides(where matches: (ProviderKey) -> Bool) -> [AnyObject] {
        withLock { $0.overrides.filter { matches($0.key) }.map(\.value.factory) }
    }

    /// The strategy of the provider that used or overrode the key, for messages: the strategy whose
    /// policy made the slot at `key`, if a call made one, or else that of the override set up there.
    package func strategy(at key: ProviderKey) -> ProviderStrategy? {
        if let entry = table.entry(for: key) { return ProviderStrategy(rawValue: UInt8(entry.tag)) }
        return withLock { $0.overrides[key]?.strategy }
    }

    /// Makes `factory` replace the provider at `key`, unless the provider was used, which made its
    /// slot, or is overridden already and `replaces` is false; returns whether it did. A provider
    /// that keeps no slot (a `transient`) is never used, and may be overridden again (`replaces`).
    ///
    /// One critical section with the making of slots (`withSlot`): a slot made after this call is
    /// made knowing of the factory, and of two overrides set up at once, one fails.
    package func setOverride(
        _ factory: AnyObject, forUnusedProviderAt key: ProviderKey, strategy: ProviderStrategy,
        replaces: Bool = false
    ) -> Bool {
        withLock { state in
            guard table.entry(for: key) == nil, replaces || state.overrides[key] == nil else { return false }
            state.overrides[key] = OverrideEntry(factory: factory, strategy: strategy)
            dirk_store_relaxed(extraWords + Self.overridesWord, 1)
            return true
        }
    }

    // MARK: Reset

    /// Empties every cache, adding what they held to `dropped`, for the caller to release outside
    /// any lock. Builds under way are left to finish.
    func reset(into dropped: inout [Any]) {
        table.forEachEntry { slot, tag, _ in ProviderCache(slot, tag: tag)?.reset(into: &dropped) }
    }

    /// Whether a build of one of the module's cached instances is under way.
    var hasBuildUnderWay: Bool {
        var builds = 0
        table.forEachEntry { slot, tag, _ in builds += ProviderCache(slot, tag: tag)?.status.builds ?? 0 }
        return builds > 0
    }
}

/// A factory that replaces a provider's, and the strategy of the provider it was set up for.
struct OverrideEntry {
    let factory: AnyObject
    let strategy: ProviderStrategy
}

/// What the table holds for a provider that caches nothing in its module: one shared object, so
/// that the entry records the provider's strategy without an object of its own.
@usableFromInline final class ProviderMarker: Sendable {
    @usableFromInline init() {}

    /// The entry of every `scoped` provider, sync or async: its instances live in each resolution's
    /// `ScopeStore`, found by the provider's key and its module's slots.
    static let scoped = ProviderMarker()

    /// The object a `transient`'s factory step returns through the pipeline, which hands the
    /// value itself to its caller another way.
    @usableFromInline static let nothing = ProviderMarker()
}

/// A provider's cache in the module, as the class its strategy's policy made it: what `reset()`
/// empties and insight reads, each through its own class, so that the code is specialized for it.
enum ProviderCache {
    case cell(OnceCell)
    case keyed(KeyedCells)

    /// The cache of a slot with `tag`, or nil if the slot caches nothing in the module.
    init?(_ slot: AnyObject, tag: UInt) {
        // The tag is the strategy that made the slot, which decides its class.
        switch ProviderStrategy(rawValue: UInt8(tag)) {
        case .single, .weak, .asyncSingle: self = .cell(slot as! OnceCell)
        case .keyedSingle: self = .keyed(slot as! KeyedCells)
        default: return nil
        }
    }

    /// Empties the cache, adding what it held to `dropped`, for the caller to release outside any
    /// lock.
    func reset(into dropped: inout [Any]) {
        switch self {
        case .cell(let cell): if let value = cell.reset() { dropped.append(value) }
        case .keyed(let cells): dropped += cells.reset()
        }
    }

    /// What the cache holds now: whether an instance, how many builds are under way, and how many
    /// callers wait for them.
    var status: CacheStatus {
        switch self {
        case .cell(let cell): cell.status
        case .keyed(let cells): cells.status
        }
    }
}

/// What a cache holds at one moment, for insight.
struct CacheStatus {
    var holdsInstance = false
    var builds = 0
    var waiters = 0
}

extension OnceCell {
    /// What the cell holds now. Its value is let go after the lock (see `hasValue`).
    var status: CacheStatus {
        let (value, isBuilding, waiters) = withMachine { ($0.readyValue, $0.isBuilding, $0.waiterCount) }
        return withExtendedLifetime(value) {
            CacheStatus(holdsInstance: value != nil, builds: isBuilding ? 1 : 0, waiters: waiters)
        }
    }
}

extension KeyedCells {
    var status: CacheStatus {
        cells.reduce(into: CacheStatus()) { total, cell in
            let status = cell.status
            total.holdsInstance = total.holdsInstance || status.holdsInstance
            total.builds += status.builds
            total.waiters += status.waiters
        }
    }
}
