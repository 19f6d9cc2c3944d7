/// The `scoped` instances of a resolution that only its own thread can reach: a synchronous
/// resolution that runs outside any async one, kept by the thread's `ResolutionContext`.
///
/// No other thread or task can ask for these instances, so nothing here takes a lock or waits.
/// Each instance is built at most once because its thread, the only one that asks, marks the
/// provider's entry as building before the factory runs: a call that finds the entry building is
/// the factory needing itself, a cycle. (An async resolution shares its instances between its
/// tasks and the threads they run on, and keeps them in a `ScopeStore`, whose build-once cells
/// let those wait for each other.)
///
/// A provider's entry is found by the provider's key and the owner of its module's slots, which
/// the entry keeps alive, so that no other owner can take the same address while the resolution
/// lasts.
struct ConfinedScope {
    /// Where a provider's instance is.
    enum State {
        /// The factory runs.
        case building
        /// Built, and its `configure:` closure runs: calls from the configuration get it as it is.
        case configuring(AnyObject)
        case ready(AnyObject)
    }

    struct Entry {
        let owner: AnyObject
        let key: ProviderKey
        var state: State
    }

    private var entries = InlineList<Entry>()

    var isEmpty: Bool { entries.isEmpty }

    // The methods are `mutating`, even those that only read, so that calling them on the
    // context's property works on it in place instead of on a copy. (Speed only.)

    /// The state of the provider at `key` among the slots that `owner` keeps, or nil if the
    /// resolution has not asked for it yet.
    mutating func state(owner: AnyObject, key: ProviderKey) -> State? {
        var found: State?
        entries.forFirst(where: { $0.owner === owner && $0.key == key }, { found = $0.state })
        return found
    }

    /// Records that the provider at `key` among the slots that `owner` keeps is building.
    mutating func beginBuilding(owner: AnyObject, key: ProviderKey) {
        entries.append(Entry(owner: owner, key: key, state: .building))
    }

    /// Records the provider's instance, whose `configure:` closure runs, in its entry, which
    /// exists.
    mutating func setConfiguring(_ value: AnyObject, owner: AnyObject, key: ProviderKey) {
        let isThere = entries.modifyFirst(
            where: { $0.owner === owner && $0.key == key }, { $0.state = .configuring(value) })
        precondition(isThere, "Dirk internal error: a scoped instance without its entry")
    }

    /// Records the provider's ready instance in its entry, which exists.
    mutating func setReady(_ value: AnyObject, owner: AnyObject, key: ProviderKey) {
        let isThere = entries.modifyFirst(
            where: { $0.owner === owner && $0.key == key }, { $0.state = .ready(value) })
        precondition(isThere, "Dirk internal error: a scoped instance without its entry")
    }

    /// Removes the provider's entry, after its factory failed; returns it, for the caller to
    /// release.
    mutating func remove(owner: AnyObject, key: ProviderKey) -> Entry? {
        entries.removeFirst { $0.owner === owner && $0.key == key }
    }

    /// Removes every entry and returns them, for the caller to release once the resolution has
    /// ended: deinitializers may run user code, even resolve again on this thread.
    mutating func end() -> InlineList<Entry> {
        entries.removeAllElements()
    }
}

extension ResolutionContext {
    /// The instance of the `scoped` provider at `key` among the slots that `owner` keeps, in this
    /// thread's own resolution (see `ConfinedScope`): the one already built, or one that `build`
    /// makes now, as the step `frame`, and `configure` completes when `configures`.
    ///
    /// Call it only when `sharedScopeStore` is nil.
    func resolveConfinedScoped(
        owner: AnyObject, key: ProviderKey, frame: Frame, build: () throws -> AnyObject, configures: Bool,
        configure: (AnyObject) throws -> Void
    ) throws -> AnyObject {
        switch confinedScope.state(owner: owner, key: key) {
        case .ready(let value), .configuring(let value):
            return value
        case .building:
            Diagnostics.cycle(path: steps(from: frame) + [frame], at: frame)
        case nil:
            break
        }
        confinedScope.beginBuilding(owner: owner, key: key)
        hasEndWork = true
        enter(frame)
        let value: AnyObject
        do {
            value = try build()
            if configures {
                confinedScope.setConfiguring(value, owner: owner, key: key)
                configurationDepth += 1
                defer { configurationDepth -= 1 }
                try configure(value)
            }
        } catch {
            // Nothing is kept: the next call builds again. The entry is released after the step,
            // which may end the resolution.
            let failed = confinedScope.remove(owner: owner, key: key)
            leave()
            withExtendedLifetime(failed) {}
            throw error
        }
        // Ready before the step is left: leaving the outermost step ends the resolution, which
        // releases the entries.
        confinedScope.setReady(value, owner: owner, key: key)
        leave()
        return value
    }

    /// Whether this thread's own resolution holds an instance of the `scoped` provider at `key`
    /// among the slots that `owner` keeps, for traces.
    func hasConfinedScopedInstance(owner: AnyObject, key: ProviderKey) -> Bool {
        switch confinedScope.state(owner: owner, key: key) {
        case .ready, .configuring: true
        case .building, nil: false
        }
    }
}
