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
///
/// The entries lie in a buffer that the thread's context keeps from one resolution to the next, as
/// it keeps its frames: most resolutions ask for no `scoped` provider or for one, and a list of
/// optional entries, each of many words, cost a `request` about three hundred instructions to fill
/// and empty. (Speed only.) The entries of the resolution under way are those from `floor` up: a
/// resolution that ends releases its entries one at a time, in the order they were asked for, each
/// out of the buffer, and a deinitializer that resolves again on this thread meanwhile starts a
/// resolution of its own above the entries not released yet (see `takeLast(above:)`).
///
/// **Why it is safe.** Only the context's own thread touches the buffer. The first `count` entries
/// are initialized, the rest are not; every method keeps it so, and moves an entry out before
/// anything else can see the buffer. No method runs user code, so no access to the buffer is under
/// way while user code runs.
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

    private var entries: UnsafeMutablePointer<Entry>
    private var capacity = 4
    /// How many entries are initialized, those of a resolution that is ending included.
    private(set) var count = 0
    /// Where the entries of the resolution under way begin: zero, or, while an ending resolution
    /// releases an entry, the number of entries it has not released yet.
    private var floor = 0

    init() {
        entries = .allocate(capacity: capacity)
    }

    /// Releases what the buffer holds and frees it: call it once, when the context goes. It holds
    /// nothing unless its thread exited in the middle of a resolution.
    func deallocate() {
        entries.deinitialize(count: count)
        entries.deallocate()
    }

    /// Whether the resolution under way holds no entry.
    var isEmpty: Bool { count == floor }

    /// The index of the entry of the provider at `key` of `owner` in the resolution under way.
    private func index(owner: AnyObject, key: ProviderKey) -> Int? {
        var index = floor
        while index < count {
            if entries[index].isFor(owner: owner, key: key) { return index }
            index &+= 1
        }
        return nil
    }

    private mutating func append(_ entry: consuming Entry) {
        if count == capacity {
            entries = ResolutionContext.moved(entries, count: count, toCapacity: capacity * 2)
            capacity *= 2
        }
        (entries + count).initialize(to: entry)
        count &+= 1
    }

    /// Removes the entries of the providers asked for after the first `mark` ones, and returns
    /// them, for the caller to release.
    mutating func removeEntries(from mark: Int) -> [Entry] {
        precondition(mark >= floor, "Dirk internal error: scoped instances removed below their resolution's")
        guard mark < count else { return [] }
        let removed = Array(UnsafeBufferPointer(start: entries + mark, count: count - mark))
        (entries + mark).deinitialize(count: count - mark)
        count = mark
        return removed
    }

    /// The state of the provider at `key` of `owner`, or nil if the
    /// resolution has not asked for it yet.
    func state(owner: AnyObject, key: ProviderKey) -> State? {
        index(owner: owner, key: key).map { entries[$0].state }
    }

    /// Records that the provider at `key` of `owner` is building, and returns the index of its
    /// entry, for `setReady(_:at:owner:key:)`.
    mutating func beginBuilding(owner: AnyObject, key: ProviderKey) -> Int {
        append(Entry(owner: owner, key: key, state: .building))
        return count &- 1
    }

    /// Adds the cell of the provider at `key` of `owner`.
    mutating func add(_ cell: OnceCell<StrongObjectStorage>, owner: AnyObject, key: ProviderKey) {
        append(Entry(owner: owner, key: key, state: .cell(cell)))
    }

    /// Records the provider's ready instance in its entry, at the `index` that `beginBuilding`
    /// returned, taking over the caller's reference.
    ///
    /// The entry is where it was: while the provider builds, entries are added and removed only
    /// above it, by the providers its factory asks for, and the resolution cannot end inside the
    /// provider's step. Checked all the same, without a search. (Speed only: the search, and the
    /// reference counted anew, cost a `request` about sixty instructions and two atomic operations.)
    mutating func setReady(_ value: consuming AnyObject, at index: Int, owner: AnyObject, key: ProviderKey) {
        // Building, so that the assignment releases nothing: no method runs user code.
        guard index >= floor, index < count, entries[index].isFor(owner: owner, key: key),
            case .building = entries[index].state
        else {
            preconditionFailure("Dirk internal error: a scoped instance without its entry")
        }
        entries[index].state = .ready(value)
    }

    /// Removes the provider's entry, after its factory failed; returns it, for the caller to
    /// release.
    mutating func remove(owner: AnyObject, key: ProviderKey) -> Entry? {
        guard let index = index(owner: owner, key: key) else { return nil }
        let removed = (entries + index).move()
        (entries + index).moveInitialize(from: entries + index + 1, count: count - index - 1)
        count &-= 1
        return removed
    }

    /// Begins to end the resolution under way: puts its entries in the order `takeLast(above:)`
    /// takes them, the first asked for first, as a resolution has always released its instances,
    /// and returns where they begin, for `takeLast(above:)`.
    mutating func beginEnd() -> Int {
        var entriesOfResolution = UnsafeMutableBufferPointer(start: entries + floor, count: count - floor)
        entriesOfResolution.reverse()
        return floor
    }

    /// Takes the last entry of the resolution under way, whose entries begin at `outerFloor` (see
    /// `beginEnd()`), for the caller to release before it takes the next: the entries not taken yet are out of reach
    /// of a resolution that a deinitializer starts on this thread meanwhile, which lies above them
    /// and leaves the buffer as it found it when it ends. Nil when none is left, once `floor` is
    /// `outerFloor` again.
    ///
    /// Each call is an access of its own, so that no access to the buffer is under way while an
    /// entry is released and user code runs.
    mutating func takeLast(above outerFloor: Int) -> Entry? {
        guard count > outerFloor else {
            floor = outerFloor
            return nil
        }
        count &-= 1
        floor = count
        return (entries + count).move()
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
            Diagnostics.cycle(path: steps(from: frame) + [frame], at: frame, keys: ResolutionContext.stepKeys)
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
        let index = confinedScope.beginBuilding(owner: owner, key: key)
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
        confinedScope.setReady(copy value, at: index, owner: owner, key: key)
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
