/// The cells of a host, by key, which the host keeps under its lock: an array of cells, searched
/// in order while there are few, and found through a dictionary of their places once there are
/// more; and the keys of each `single(key:)` provider. A cached read reads its cell in place.
@usableFromInline package struct CellTable {
    /// A cell and its key; a place whose key is nil is free, for the next cell made.
    @usableFromInline package struct Cell {
        @usableFromInline package var key: CellKey?
        @usableFromInline package var machine: OnceStateMachine
    }

    @usableFromInline var cells: [Cell] = []
    /// The cells' places by key, made once there are more than `searchLimit`.
    @usableFromInline var index: [CellKey: Int]?
    /// How many places are free.
    private var freeCount = 0
    /// The numbers of builds and waits, and of keys (see `OnceStateMachine`).
    package var serials: UInt64 = 0
    /// The keys of each `single(key:)` provider, by their hash values, each with its cell's serial.
    var keys = [CellKey: [Int: [KeyEntry]]]()
    /// Grows by one with every key added.
    var keysVersion: UInt64 = 0

    /// A key of a `single(key:)` provider, and the serial of its cell.
    package typealias KeyEntry = (key: AnyHashable, serial: UInt64)

    /// How many cells a table searches in order before it keeps an index.
    @inlinable static var searchLimit: Int { 8 }

    package init() {}

    /// The place of the cell at `key`, if there is one. Inlined, so that a provider's cached read
    /// compares the cells' keys with its own key's constant words.
    @inlinable @inline(__always) func place(of key: CellKey) -> Int? {
        if let index { return index[key] }
        var place = 0
        while place < cells.count {
            if cells[place].key == key { return place }
            place &+= 1
        }
        return nil
    }

    /// The cell at `key`, copied: for reading, away from cached reads.
    package subscript(key: CellKey) -> OnceStateMachine? { place(of: key).map { cells[$0].machine } }

    /// The strategy of the provider of the cell at `key`, if there is one, read in place.
    package func strategy(at key: CellKey) -> ProviderStrategy? {
        place(of: key).map { cells[$0].machine.strategy }
    }

    /// The keys and cells, copied.
    package var entries: [(key: CellKey, cell: OnceStateMachine)] {
        cells.compactMap { cell in cell.key.map { ($0, cell.machine) } }
    }

    /// The strong value of the ready cell at `key`, if it belongs to a provider of `strategy`: what a
    /// cached read reads, in place.
    @inlinable @inline(__always)
    package func ready(at key: CellKey, for strategy: ProviderStrategy) -> AnyObject? {
        guard let place = place(of: key), cells[place].machine.strategy == strategy, strategy != .weak else {
            return nil
        }
        return cells[place].machine.ready
    }

    /// `CellHost.claim` for this table. Every provider records its strategy in its own cell, which
    /// holds its instance when it has one (a `single`'s, a `weak`'s); a key's instances are in cells
    /// of their own, and a resolution's `scoped` instance in its scope's table (see `record`). When
    /// `makes`, the cell is made if missing; a key's cell only `add` makes. Answers `.clash` when the
    /// cell records another strategy (`clash(at:with:)`), and `.retired` where there is no cell.
    package mutating func claim(_ key: CellKey, by agent: BuildAgent, step: Step, makes: Bool)
        -> OnceStateMachine.Claim
    {
        var found = place(of: key)
        if found == nil, makes { found = make(key, strategy: step.strategy, ownerType: step.subject) }
        guard let place = found else { return .retired }
        if let other = clash(at: place, with: step.strategy) { return .clash(other) }
        return cells[place].machine.claim(by: agent, step: step, serials: &serials)
    }

    /// Records the strategy of `step`'s provider, whose own cell is at `own`, in that cell, made if
    /// missing, for a provider whose instances are in no cell of this table (`scoped`); returns the
    /// strategy recorded there if it is another (see `clash(at:with:)`).
    package mutating func record(_ own: CellKey, step: Step) -> ProviderStrategy? {
        let place = place(of: own) ?? make(own, strategy: step.strategy, ownerType: step.subject)
        return clash(at: place, with: step.strategy)
    }

    /// The strategy that the provider whose own cell is at `place` records, if it is not `strategy`:
    /// two providers at one key, which only generated code, or a `ProviderID` given twice, can make.
    /// Dirk's one check of it.
    package func clash(at place: Int, with strategy: ProviderStrategy) -> ProviderStrategy? {
        let recorded = cells[place].machine.strategy
        return recorded == strategy ? nil : recorded
    }

    /// Makes the empty cell at `key` for a provider of `strategy` of an `ownerType`, built in its place
    /// rather than copied there (a cell is many words), and returns its place.
    @discardableResult
    package mutating func make(_ key: CellKey, strategy: ProviderStrategy, ownerType: Any.Type) -> Int {
        let place: Int
        if freeCount > 0, let free = cells.firstIndex(where: { $0.key == nil }) {
            place = free
            freeCount -= 1
            cells[place] = Cell(key: key, machine: OnceStateMachine(strategy: strategy, ownerType: ownerType))
        } else {
            // Room for one cell first, since most children cache one instance; then, at the second,
            // for as many as the table searches in order, since a component that caches two usually
            // caches more: one allocation, not two, on the way to an index.
            if cells.count == 1 { cells.reserveCapacity(Self.searchLimit) }
            place = cells.count
            cells.append(Cell(key: key, machine: OnceStateMachine(strategy: strategy, ownerType: ownerType)))
        }
        if index == nil, cells.count > Self.searchLimit {
            index = Dictionary(
                uniqueKeysWithValues: cells.indices.compactMap { at in cells[at].key.map { ($0, at) } })
        }
        index?[key] = place
        return place
    }

    /// Removes the cell at `key`, and returns it.
    package mutating func remove(_ key: CellKey) -> OnceStateMachine? {
        place(of: key).map { remove(at: $0) }
    }

    /// Removes the cell at `place`, and returns it.
    private mutating func remove(at place: Int) -> OnceStateMachine {
        if let key = cells[place].key { index?[key] = nil }
        if place == cells.count - 1 { return cells.removeLast().machine }
        freeCount += 1
        cells[place].key = nil
        // A swap, not `exchange(_:with:)`, which costs a removal 14 more instructions (callgrind,
        // `request`).
        var taken = OnceStateMachine()
        swap(&taken, &cells[place].machine)
        return taken
    }

    /// `CellHost.withCell` for this table: `body` runs on the cell in place; false if there is none.
    /// A cell that was dropped while a build was under way goes once that build has ended, here: it
    /// holds no value then, so that releasing it runs no user code.
    package mutating func withCell(
        _ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void
    ) -> Bool {
        guard let place = place(of: key) else { return false }
        body(&cells[place].machine, &serials)
        if cells[place].machine.isDone { removeDone(at: place) }
        return true
    }

    /// Removes the cell at `place`, which is done (`OnceStateMachine.isDone`) and so holds nothing to
    /// return: the last one is destroyed in place rather than moved out first.
    private mutating func removeDone(at place: Int) {
        guard place == cells.count - 1, index == nil else {
            _ = remove(at: place)
            return
        }
        cells.removeLast(1)
    }

    /// Drops the cell at `key`: removes it and returns it, unless a build is under way in it, which
    /// then ends leaving no value (see `OnceStateMachine.drop()`).
    package mutating func drop(_ key: CellKey) -> OnceStateMachine? {
        guard let place = place(of: key), cells[place].machine.drop() else { return nil }
        return remove(at: place)
    }

    /// Drops the cell at `key`, just claimed, which the table does not keep past its build (see
    /// `drop(_:)`): it goes as its build ends. It holds no value, so nothing is returned, or copied out.
    package mutating func dropClaimed(_ key: CellKey) {
        guard let place = place(of: key), cells[place].machine.drop() else { return }
        let dropped = remove(at: place)
        assert(dropped.readyValue == nil, "Dirk internal error: a cell that is not kept was ready")
    }

    /// Drops every cell (see `drop(_:)`), adding what they held to `dropped`, for the caller to release
    /// outside the lock.
    package mutating func dropAll(into dropped: inout [Any]) {
        for cell in cells {
            if let key = cell.key, let removed = drop(key) { dropped.append(removed) }
        }
    }

    /// The keys of the `single(key:)` provider whose cell key is `provider` that hash to `hash`, and
    /// the version of the keys, which tells whether one was added since.
    package func keys(of provider: CellKey, hash: Int) -> (keys: [KeyEntry], version: UInt64) {
        (keys[provider]?[hash] ?? [], keysVersion)
    }

    /// Adds `key`, whose hash value is `hash`, to the provider's keys, with a new cell, unless a key
    /// was added since `version`; returns the cell's key, or nil to look again.
    package mutating func add(
        _ key: AnyHashable, hash: Int, of provider: CellKey, strategy: ProviderStrategy, ownerType: Any.Type,
        ifUnchangedSince version: UInt64
    ) -> CellKey? {
        guard keysVersion == version else { return nil }
        keysVersion &+= 1
        serials &+= 1
        // The provider's own cell records its strategy, for clashes and insight; it keeps nothing. The
        // key's cell takes the strategy recorded there, so that claiming it shows a clash with a
        // provider that came first.
        let own = place(of: provider) ?? make(provider, strategy: strategy, ownerType: ownerType)
        keys[provider, default: [:]][hash, default: []].append((key: key, serial: serials))
        let cell = provider.forKey(serials)
        make(cell, strategy: cells[own].machine.strategy, ownerType: ownerType)
        return cell
    }

    /// Empties every cell that no build is under way in, adding what they held to `dropped`, for the
    /// caller to release outside the lock. A key's cell goes with its key; any other stays, empty,
    /// keeping its strategy.
    package mutating func reset(into dropped: inout [Any]) {
        for place in cells.indices where !cells[place].machine.isBuilding {
            guard let key = cells[place].key else { continue }
            if key.keyNumber != 0 {
                dropped.append(remove(at: place))
            } else if let value = cells[place].machine.reset() {
                dropped.append(value)
            }
        }
        // The keys go after the lock, with `dropped`: their deinitializers may run user code.
        dropped.append(keys)
        for (provider, byHash) in keys {
            let live = byHash.compactMapValues { entries in
                let kept = entries.filter { place(of: provider.forKey($0.serial)) != nil }
                return kept.isEmpty ? nil : kept
            }
            keys[provider] = live.isEmpty ? nil : live
        }
    }

    /// Removes every cell that `owner` owns, adding what they held to `dropped`.
    package mutating func removeAll(ownedBy owner: ObjectIdentifier, into dropped: inout [Any]) {
        for cell in cells where cell.key?.owner == owner { dropped.append(remove(cell.key!)!) }
        for provider in keys.keys where provider.owner == owner {
            dropped.append(keys.removeValue(forKey: provider)!)
        }
    }
}
