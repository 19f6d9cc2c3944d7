import Dirk
import DirkTestSupport
import Testing

@Suite("A host's table of cells")
struct CellTableTests {
    /// The objects that own cells: modules, in a component's table.
    private let module = Item(1)
    private let otherModule = Item(2)

    // MARK: Claiming

    @Test("a claim makes the cell only when the host makes it on demand, and otherwise answers retired")
    func claimMakes() throws {
        var table = CellTable()
        let key = cellKey(owner: module)
        let agent = BuildAgent.standalone()
        #expect(table.claim(key, by: agent, step: makeStep(), makes: false).summary == .retired)
        #expect(table[key] == nil, "a claim that makes nothing leaves no cell")
        let generation = try #require(
            table.claim(key, by: agent, step: makeStep(), makes: true).generation, "a made cell builds")
        #expect(table[key]?.isBuilding == true)
        #expect(table[key]?.strategy == .single, "the cell takes the strategy of the claiming step")
        #expect(table[key]?.ownerType == Item.self, "the cell notes the type of its owner, which names it")
        // Once made, the cell answers whether or not the host makes cells.
        #expect(
            table.claim(key, by: agent, step: makeStep(), makes: false).summary
                == .cycle(generation: generation))
        #expect(table[key]?.build(ofGeneration: generation)?.step.name == "Item.claimMakes()")
        #expect(table.isBuildingAnywhere)
    }

    @Test("a claim by a step of another strategy at a cell's key answers a clash with the cell's strategy")
    func clash() {
        var table = CellTable()
        let key = cellKey(owner: module)
        let agent = BuildAgent.standalone()
        _ = table.claim(key, by: agent, step: makeStep(strategy: .weak), makes: true)
        #expect(
            table.claim(key, by: agent, step: makeStep(strategy: .single), makes: true).summary
                == .clash(.weak))
        #expect(
            table.claim(key, by: BuildAgent.standalone(), step: makeStep(strategy: .scoped), makes: false)
                .summary == .clash(.weak))
        #expect(table[key]?.strategy == .weak, "the clash leaves the first provider's cell")
        #expect(table[key]?.isBuilding == true)
    }

    @Test("cells at different keys build independently, with generations the table numbers apart")
    func separateCells() {
        var table = CellTable()
        let agent = BuildAgent.standalone()
        let keys = [
            cellKey(owner: module, line: 1), cellKey(owner: module, line: 2), cellKey(owner: otherModule),
        ]
        let generations = keys.compactMap {
            table.claim($0, by: agent, step: makeStep(), makes: true).generation
        }
        #expect(generations.count == 3 && Set(generations).count == 3)
        #expect(table.entries.count == 3)
    }

    @Test(
        "withCell runs its body on the cell at a key with the table's serials, and answers false where there is none"
    )
    func withCell() {
        var table = CellTable()
        let key = cellKey(owner: module)
        #expect(!table.withCell(key) { _, _ in Issue.record("ran without a cell") })
        _ = table.claim(key, by: BuildAgent.standalone(), step: makeStep(), makes: true)
        var waiter: UInt64?
        #expect(
            table.withCell(key) { machine, serials in
                guard let build = machine.build else { return }
                waiter = machine.enqueue(
                    .thread(.init()), of: BuildAgent.standalone(), generation: build.generation,
                    serials: &serials)
            })
        #expect(waiter != nil)
        // The waiter's number came from the table's serials: the next build anywhere differs from it.
        let other = table.claim(
            cellKey(owner: otherModule), by: BuildAgent.standalone(), step: makeStep(), makes: true)
        #expect(other.generation != nil && other.generation != waiter)
    }

    @Test("entries lists every cell by its key, and remove takes one out and returns it")
    func entriesAndRemove() {
        var table = CellTable()
        let agent = BuildAgent.standalone()
        let keys = [
            cellKey(owner: module, line: 1), cellKey(owner: module, line: 2), cellKey(owner: module, line: 3),
        ]
        let item = Item(1)
        table.buildAndPublish(item, at: keys[0], by: agent)
        _ = table.claim(keys[1], by: agent, step: makeStep(), makes: true)
        #expect(Set(table.entries.map(\.key)) == Set(keys[0...1]))
        #expect(table.remove(keys[2]) == nil, "there is no cell to remove")
        let removed = table.remove(keys[0])
        #expect(removed?.readyValue === item, "the removed cell is returned with what it held")
        #expect(table[keys[0]] == nil && table.entries.map(\.key) == [keys[1]])
        #expect(table.claim(keys[0], by: agent, step: makeStep(), makes: false).summary == .retired)
        // A cell made after a removal starts empty, and the cells left keep their state.
        #expect(table.claim(keys[2], by: agent, step: makeStep(), makes: true).summary == .build)
        #expect(table[keys[2]]?.readyValue == nil)
        #expect(table[keys[1]]?.isBuilding == true)
        #expect(Set(table.entries.map(\.key)) == Set(keys[1...2]))
        table.buildAndPublish(Item(2), at: keys[0], by: agent)
        #expect(table[keys[0]]?.readyValue !== item, "a cell made anew at a removed key starts empty")
        #expect(table[keys[0]]?.readyValue.number == 2)
    }

    @Test("a cached read finds the strong value of a ready cell only for the strategy of the cell's provider")
    func readyForStrategy() {
        var table = CellTable()
        let agent = BuildAgent.standalone()
        let (single, weak, building, missing) = (
            cellKey(owner: module, line: 1), cellKey(owner: module, line: 2), cellKey(owner: module, line: 3),
            cellKey(owner: module, line: 4)
        )
        let (item, weakItem) = (Item(1), Item(2))
        table.buildAndPublish(item, at: single, by: agent)
        table.buildAndPublish(weakItem, at: weak, by: agent, strategy: .weak)
        _ = table.claim(building, by: agent, step: makeStep(), makes: true)
        #expect(table.ready(at: single, for: .single) === item)
        #expect(table.ready(at: single, for: .keyedSingle) == nil, "another provider's read finds nothing")
        #expect(table.ready(at: weak, for: .weak) == nil, "a weak cell's value is never read as a strong one")
        #expect(table[weak]?.readyValue === weakItem, "while it is there to read under the lock")
        #expect(table.ready(at: building, for: .single) == nil)
        #expect(table.ready(at: missing, for: .single) == nil)
        withExtendedLifetime(weakItem) {}
    }

    // MARK: Keys

    @Test("a key added to a provider gets a cell of its own, listed under its hash with its serial")
    func addKey() {
        var table = CellTable()
        let provider = cellKey(owner: module)
        let (none, version) = table.keys(of: provider, hash: 7)
        #expect(none.isEmpty)
        guard
            let cell = table.add(
                AnyHashable("a"), hash: 7, of: provider, strategy: .keyedSingle, ownerType: KeyedOwner.self,
                ifUnchangedSince: version
            )
        else {
            Issue.record("an add with the current version must add")
            return
        }
        #expect(cell.owner == provider.owner && cell.provider == provider.provider)
        #expect(cell.keyNumber != 0 && cell != provider)
        #expect(table[cell]?.strategy == .keyedSingle)
        #expect(table[provider]?.strategy == .keyedSingle, "the provider's own cell marks its strategy")
        #expect(table[cell]?.ownerType == KeyedOwner.self && table[provider]?.ownerType == KeyedOwner.self)
        let (keys, _) = table.keys(of: provider, hash: 7)
        #expect(keys.map(\.key) == [AnyHashable("a")])
        #expect(keys.map(\.serial) == [cell.keyNumber])
        #expect(table.keys(of: provider, hash: 8).keys.isEmpty, "keys are found under their own hash")
        #expect(table.keys(of: cellKey(owner: otherModule), hash: 7).keys.isEmpty)
        // A key's cell resolves as any cell does.
        #expect(
            table.claim(
                cell, by: BuildAgent.standalone(), step: makeStep(strategy: .keyedSingle), makes: false
            )
            .summary == .build)
        // A provider of another strategy at the provider's key clashes with the keyed provider.
        #expect(
            table.claim(provider, by: BuildAgent.standalone(), step: makeStep(), makes: true).summary
                == .clash(.keyedSingle))
    }

    @Test("an add after another add since the version it looked at adds nothing and says to look again")
    func addChecksVersion() {
        var table = CellTable()
        let provider = cellKey(owner: module)
        let version = table.keys(of: provider, hash: 1).version
        let first = table.add(
            AnyHashable(1), hash: 1, of: provider, strategy: .keyedSingle, ownerType: KeyedOwner.self,
            ifUnchangedSince: version)
        #expect(first != nil)
        // Another key, under another hash, was added since: the stale add must look again.
        #expect(
            table.add(
                AnyHashable(2), hash: 2, of: provider, strategy: .keyedSingle, ownerType: KeyedOwner.self,
                ifUnchangedSince: version)
                == nil)
        #expect(table.keys(of: provider, hash: 2).keys.isEmpty)
        let (keys, current) = table.keys(of: provider, hash: 1)
        #expect(current != version)
        #expect(keys.count == 1)
        let second = table.add(
            AnyHashable(3), hash: 1, of: provider, strategy: .keyedSingle, ownerType: KeyedOwner.self,
            ifUnchangedSince: current)
        #expect(second != nil && second != first)
        #expect(table.keys(of: provider, hash: 1).keys.map(\.key) == [AnyHashable(1), AnyHashable(3)])
    }

    // MARK: Resetting

    @Test(
        "reset empties ready cells, drops keys and their cells, keeps a keyed provider's own cell, and leaves a building cell alone"
    )
    func reset() {
        var table = CellTable()
        let agent = BuildAgent.standalone()
        var probes: [WeakItem] = []
        let ready = cellKey(owner: module, line: 1)
        let building = cellKey(owner: module, line: 2)
        let provider = cellKey(owner: module, line: 3)
        var keyCells: [CellKey] = []
        do {
            let item = Item(1)
            probes.append(WeakItem(item: item))
            table.buildAndPublish(item, at: ready, by: agent)
            for (hash, key) in [(1, "ready"), (1, "building")] {
                let version = table.keys(of: provider, hash: hash).version
                guard
                    let cell = table.add(
                        AnyHashable(key), hash: hash, of: provider, strategy: .keyedSingle,
                        ownerType: KeyedOwner.self,
                        ifUnchangedSince: version)
                else {
                    Issue.record("an add with the current version must add")
                    return
                }
                keyCells.append(cell)
            }
            let keyed = Item(2)
            probes.append(WeakItem(item: keyed))
            table.buildAndPublish(keyed, at: keyCells[0], by: agent, strategy: .keyedSingle)
        }
        let building1 = table.claim(building, by: agent, step: makeStep(), makes: true).generation
        let building2 = table.claim(
            keyCells[1], by: agent, step: makeStep(strategy: .keyedSingle), makes: false
        )
        .generation
        var dropped: [Any] = []
        table.reset(into: &dropped)
        #expect(
            table[ready] != nil && table[ready]?.hasValue == false, "a ready cell stays, empty")
        #expect(table[ready]?.strategy == .single, "and keeps its strategy")
        #expect(table[provider]?.strategy == .keyedSingle, "the provider's own cell stays")
        #expect(table[keyCells[0]] == nil, "a ready key's cell goes with its key")
        #expect(table.keys(of: provider, hash: 1).keys.map(\.key) == [AnyHashable("building")])
        #expect(table[building]?.build(ofGeneration: building1 ?? 0) != nil, "a build under way stays")
        #expect(table[keyCells[1]]?.build(ofGeneration: building2 ?? 0) != nil)
        #expect(table.isBuildingAnywhere)
        #expect(probes.allSatisfy { $0.item != nil }, "what reset dropped is released only by the caller")
        dropped = []
        #expect(probes.allSatisfy { $0.item == nil })
        // A key's cell that reset dropped is retired: a claim there makes nothing.
        #expect(
            table.claim(keyCells[0], by: agent, step: makeStep(strategy: .keyedSingle), makes: false)
                .summary
                == .retired)
        // The emptied cell builds anew.
        #expect(table.claim(ready, by: agent, step: makeStep(), makes: true).summary == .build)
    }

    @Test("removeAll(ownedBy:) removes that owner's cells and keys, and no other owner's")
    func removeAllOwnedBy() {
        var table = CellTable()
        let agent = BuildAgent.standalone()
        var probes: [WeakItem] = []
        let mine = [cellKey(owner: module, line: 1), cellKey(owner: module, line: 2)]
        let theirs = [cellKey(owner: otherModule, line: 1), cellKey(owner: otherModule, line: 2)]
        var keyCells: [CellKey?] = []
        do {
            for (index, key) in (mine + theirs).enumerated() {
                let item = Item(index)
                probes.append(WeakItem(item: item))
                table.buildAndPublish(item, at: key, by: agent)
            }
            for owner in [module, otherModule] {
                let provider = cellKey(owner: owner, line: 3)
                let version = table.keys(of: provider, hash: 0).version
                keyCells.append(
                    table.add(
                        AnyHashable("key"), hash: 0, of: provider, strategy: .keyedSingle,
                        ownerType: KeyedOwner.self,
                        ifUnchangedSince: version))
            }
        }
        var dropped: [Any] = []
        table.removeAll(ownedBy: ObjectIdentifier(module), into: &dropped)
        #expect(mine.allSatisfy { table[$0] == nil })
        #expect(table[cellKey(owner: module, line: 3)] == nil && table[keyCells[0]!] == nil)
        #expect(table.keys(of: cellKey(owner: module, line: 3), hash: 0).keys.isEmpty)
        #expect(theirs.allSatisfy { table[$0]?.hasValue == true })
        #expect(table[keyCells[1]!] != nil)
        #expect(table.keys(of: cellKey(owner: otherModule, line: 3), hash: 0).keys.count == 1)
        dropped = []
        #expect(probes.map { $0.item == nil } == [true, true, false, false])
    }
}

/// The type of the owner of a `single(key:)` provider's cells, which names them.
private final class KeyedOwner {}

extension CellTable {
    /// Builds `value` in the cell at `key`, made if need be for a provider of `strategy`, and makes
    /// it ready.
    mutating func buildAndPublish(
        _ value: AnyObject, at key: CellKey, by agent: BuildAgent, strategy: ProviderStrategy = .single
    ) {
        guard
            case .build(let generation) = claim(
                key, by: agent, step: makeStep(strategy: strategy), makes: true)
        else {
            Issue.record("the cell must be empty to build")
            return
        }
        _ = withCell(key) { machine, _ in _ = machine.complete(with: value, generation: generation) }
    }

    /// Whether a build is under way in any cell.
    var isBuildingAnywhere: Bool { entries.contains { $0.cell.isBuilding } }
}
