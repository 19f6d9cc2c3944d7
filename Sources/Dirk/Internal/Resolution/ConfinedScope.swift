/// The `scoped` instances of a resolution that only its own thread asks for: a synchronous
/// resolution that runs outside any async one, kept by the thread's `ResolutionContext`.
///
/// No other thread or task calls these providers in this resolution, so an instance built without
/// a `configure:` closure needs no lock and no cell: its thread, the only one that asks, marks the
/// provider's entry as building before the factory runs, and a call that finds the entry building
/// is the factory needing itself, a cycle. Once built, the instance is complete before anyone else
/// can see it.
///
/// An instance with a `configure:` closure is different: while the closure runs, what it builds may
/// already refer to the instance, and a `single` built meanwhile may reach another thread, which
/// must wait until the instance is configured. Such a provider's entry holds a build-once cell
/// (`OnceCell`), which records the configuration for those waits as every cell does; the cell is
/// found only through this list, so its lock is never contended.
///
/// (An async resolution shares its instances between its tasks and the threads they run on, and
/// keeps them all in cells of a `ScopeStore`.)
///
/// A provider's entry is found by the provider's key and its owner, the module whose provider it
/// is, which the entry keeps alive, so that no other owner can take the same address while the
/// resolution lasts.
struct ConfinedScope {
    /// Where a provider's instance is.
    enum State {
        /// The factory of a provider without `configure:` runs.
        case building
        /// The instance of a provider without `configure:`.
        case ready(AnyObject)
        /// The cell of a provider with `configure:`.
        case cell(OnceCell<StrongObjectStorage>)
    }

    struct Entry {
        let owner: AnyObject
        let key: ProviderKey
        var state: State

        /// Whether this is the entry of the provider at `key` of `owner`.
        func isFor(owner: AnyObject, key: ProviderKey) -> Bool {
            self.owner === owner && self.key == key
        }
    }

    private var entries = InlineList<Entry>()

    var isEmpty: Bool { entries.isEmpty }

    /// How many providers the resolution asked for: a mark for `removeEntries(from:)`.
    var count: Int { entries.count }

    /// Removes the entries of the providers asked for after the first `mark` ones, and returns
    /// them, for the caller to release.
    mutating func removeEntries(from mark: Int) -> [Entry] {
        entries.removeElements(from: mark)
    }

    // The methods are `mutating`, even those that only read, so that calling them on the
    // context's property works on it in place instead of on a copy. (Speed only.)

    /// The state of the provider at `key` of `owner`, or nil if the
    /// resolution has not asked for it yet.
    mutating func state(owner: AnyObject, key: ProviderKey) -> State? {
        var found: State?
        entries.forFirst(where: { $0.isFor(owner: owner, key: key) }, { found = $0.state })
        return found
    }

    /// Records that the provider at `key` of `owner` is building.
    mutating func beginBuilding(owner: AnyObject, key: ProviderKey) {
        entries.append(Entry(owner: owner, key: key, state: .building))
    }

    /// Adds the cell of the provider at `key` of `owner`.
    mutating func add(_ cell: OnceCell<StrongObjectStorage>, owner: AnyObject, key: ProviderKey) {
        entries.append(Entry(owner: owner, key: key, state: .cell(cell)))
    }

    /// Records the provider's ready instance in its entry, which exists.
    mutating func setReady(_ value: AnyObject, owner: AnyObject, key: ProviderKey) {
        let isThere = entries.modifyFirst(
            where: { $0.isFor(owner: owner, key: key) }, { $0.state = .ready(value) })
        precondition(isThere, "Dirk internal error: a scoped instance without its entry")
    }

    /// Removes the provider's entry, after its factory failed; returns it, for the caller to
    /// release.
    mutating func remove(owner: AnyObject, key: ProviderKey) -> Entry? {
        entries.removeFirst { $0.isFor(owner: owner, key: key) }
    }

    /// Removes every entry and returns them, for the caller to release once the resolution has
    /// ended: deinitializers may run user code, even resolve again on this thread.
    mutating func end() -> InlineList<Entry> {
        entries.removeAllElements()
    }
}

extension ResolutionContext {
    /// The instance of the `scoped` provider at `key` of `owner`, in this
    /// thread's own resolution (see `ConfinedScope`): the one already built, or one that `build`
    /// makes now, as the step `frame`, and `configure` completes when `configures`.
    ///
    /// Call it only when `sharedScopeStore` is nil.
    func resolveConfinedScoped(
        owner: AnyObject, key: ProviderKey, frame: Frame, build: () throws -> AnyObject, configures: Bool,
        configure: (AnyObject) throws -> Void
    ) throws -> AnyObject {
        switch confinedScope.state(owner: owner, key: key) {
        case .ready(let value):
            return value
        case .building:
            Diagnostics.cycle(path: steps(from: frame) + [frame], at: frame)
        case .cell(let cell):
            return try cell.resolve(
                in: self, frame: frame, build: build, configures: true, configure: configure)
        case nil:
            if configures {
                let cell = StrongObjectCell.make()
                confinedScope.add(cell, owner: owner, key: key)
                hasEndWork = true
                // The local reference keeps the cell alive through the call, even when leaving the
                // outermost step ends the resolution and releases the entry.
                return try cell.resolve(
                    in: self, frame: frame, build: build, configures: true, configure: configure)
            }
        }
        confinedScope.beginBuilding(owner: owner, key: key)
        hasEndWork = true
        enter(frame)
        let value: AnyObject
        do {
            value = try build()
        } catch {
            // Nothing is kept: the next call builds again. The entry is released after the step,
            // which may end the resolution.
            let failed = confinedScope.remove(owner: owner, key: key)
            _ = leave()
            withExtendedLifetime(failed) {}
            throw error
        }
        // Ready before the step is left: leaving the outermost step ends the resolution, which
        // releases the entries.
        confinedScope.setReady(value, owner: owner, key: key)
        if let failure = leave() { throw failure }
        return value
    }

    /// Whether this thread's own resolution holds an instance of the `scoped` provider at `key`
    /// of `owner`, for traces: as a cell would say, an instance that is
    /// still being configured is not there yet.
    func hasConfinedScopedInstance(owner: AnyObject, key: ProviderKey) -> Bool {
        switch confinedScope.state(owner: owner, key: key) {
        case .ready: true
        case .cell(let cell): cell.hasValue
        case .building, nil: false
        }
    }
}
