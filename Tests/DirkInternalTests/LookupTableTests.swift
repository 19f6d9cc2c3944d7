import Dirk
import DirkTestSupport
import Testing

@Suite("The lock-free lookup table")
struct LookupTableTests {
    private typealias TypeTable = LookupTable<TypeKey, Item>

    @Test("an empty table finds nothing and visits nothing")
    func empty() {
        withTable(TypeTable.self) { table in
            #expect(table.entry(for: TypeKey(Item.self)) == nil)
            #expect(table.value(for: TypeKey(Int.self)) == nil)
            var visits = 0
            table.forEachEntry { _, _, _ in visits += 1 }
            #expect(visits == 0)
            table.checkInvariants()
        }
    }

    @Test(
        "the first entry lives in the owner's words; the second allocates an overflow storage that copies it")
    func firstEntryInline() {
        withTable(TypeTable.self) { table in
            let first = Item(0)
            table.insert(first, tag: 5, for: TypeKey(Int.self))
            table.checkInvariants()
            #expect(table.overflowStorage == nil)
            #expect(table.entry(for: TypeKey(Int.self))?.value === first)
            #expect(table.entry(for: TypeKey(Int.self))?.tag == 5)
            table.insert(Item(1), for: TypeKey(String.self))
            table.checkInvariants()
            #expect(table.overflowStorage?.slotCount == 8)
            #expect(table.overflowStorage?.count == 2, "the new entry and a copy of the inline one")
            #expect(
                table.overflowStorage?.unretainedEntry(for: TypeKey(Int.self))?.value.takeUnretainedValue()
                    === first)
            #expect(table.entry(for: TypeKey(Int.self))?.value === first)
            #expect(table.entry(for: TypeKey(String.self))?.value.number == 1)
            #expect(table.entry(for: TypeKey(String.self))?.tag == 0)
        }
    }

    @Test("hundreds of entries, through several growths, are each found with their tag; absent keys are not")
    func manyEntries() {
        let types = distinctTypes(1000)
        let stored = types[..<600].map(TypeKey.init)
        let absent = types[600...].map(TypeKey.init)
        withTable(TypeTable.self) { table in
            for (index, key) in stored.enumerated() {
                table.insert(Item(index), tag: UInt(index), for: key)
                if index < 100 || index.isMultiple(of: 50) { table.checkInvariants() }
            }
            table.checkInvariants()
            for (index, key) in stored.enumerated() {
                let entry = table.entry(for: key)
                #expect(entry?.value.number == index && entry?.tag == UInt(index), "entry \(index)")
                let called = table.entry(for: key, inliningHomeSlot: false)
                #expect(called?.value === entry?.value && called?.tag == entry?.tag, "entry \(index), called")
            }
            for key in absent {
                #expect(table.entry(for: key) == nil)
                #expect(table.entry(for: key, inliningHomeSlot: false) == nil)
            }
            // 600 entries in the storage (the inline one copied) need 2,048 slots, the eighth storage
            // after 8 slots.
            #expect(table.storageChain.map(\.slotCount) == [2048, 1024, 512, 256, 128, 64, 32, 16, 8])
        }
    }

    @Test("an outgrown storage, kept for readers still probing it, still finds every entry it had")
    func outgrownStoragesStillFind() {
        let keys = distinctTypes(200).map(TypeKey.init)
        withTable(TypeTable.self) { table in
            for (index, key) in keys.enumerated() { table.insert(Item(index), tag: UInt(index), for: key) }
            for storage in table.storageChain {
                var found = 0
                // The overflow storages hold every key, the inline one first, in insertion order.
                for (index, key) in keys.enumerated().prefix(storage.count) {
                    let entry = storage.unretainedEntry(for: key)
                    #expect(entry?.value.takeUnretainedValue().number == index && entry?.tag == UInt(index))
                    found += 1
                }
                #expect(found == storage.count && storage.count * 2 <= storage.slotCount)
            }
        }
    }

    @Test("forEachEntry visits every entry once, the first inserted first, with its tag and key")
    func forEachEntry() {
        let keys = distinctTypes(300).map(TypeKey.init)
        withTable(TypeTable.self) { table in
            for (index, key) in keys.enumerated() {
                table.insert(Item(index), tag: UInt(index) * 3, for: key)
            }
            var visited: [Int] = []
            table.forEachEntry { value, tag, key in
                visited.append(value.number)
                #expect(tag == UInt(value.number) * 3)
                #expect(key == keys[value.number])
            }
            #expect(visited.first == 0)
            #expect(visited.sorted() == Array(0..<300))
            var values: [Int] = []
            // `forEach` is the table's own, under test, not `Sequence.forEach`.
            table.forEachValue { value, tag in
                values.append(value.number)
                #expect(tag == UInt(value.number) * 3)
            }
            #expect(values == visited)
        }
    }

    @Test(
        "destroy() releases every value, however many inline entries are filled, including the references of outgrown storages",
        arguments: [(inline: 1, count: 300), (4, 0), (4, 1), (4, 3), (4, 4), (4, 5), (4, 40)])
    func destroyReleases(inlineCount: Int, count: Int) {
        let keys = distinctTypes(count).map(TypeKey.init)
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: TypeTable.wordCount(inline: inlineCount))
        defer { words.deallocate() }
        let table = TypeTable(words: words, inlineCount: inlineCount)
        table.initialize()
        var probes: [WeakItem] = []
        for (index, key) in keys.enumerated() {
            let item = Item(index)
            probes.append(WeakItem(item: item))
            table.insert(item, tag: 0, for: key)
        }
        #expect(probes.count == count)
        #expect(probes.allSatisfy { $0.item != nil }, "the table keeps its values alive")
        table.destroy()
        #expect(probes.allSatisfy { $0.item == nil }, "destroy() must release every value")
    }

    @Test("a table keyed by types gives the value stored under a type's key as that type")
    func instanceOfType() {
        withTable(LookupTable<TypeKey, AnyObject>.self) { table in
            let first = FirstModule()
            let second = SecondModule()
            table.insert(first, for: TypeKey(FirstModule.self))
            table.insert(second, for: TypeKey(SecondModule.self))
            table.checkInvariants()
            #expect(table.instance(of: FirstModule.self) === first)
            #expect(table.instance(of: SecondModule.self) === second)
            #expect(table.instance(of: Item.self) == nil)
        }
    }

    @Test(
        "every storage stays within half its slots, the first too, which starts with the inline entries")
    func loadLimit() {
        let keys = distinctTypes(200).map(TypeKey.init)
        for inline in [1, 4] {
            withTable(TypeTable.self, inline: inline) { table in
                for (index, key) in keys.enumerated() {
                    table.insert(Item(index), tag: 0, for: key)
                    table.checkInvariants()
                    guard let storage = table.overflowStorage else { continue }
                    // 5 entries of a table with 4 inline took 8 slots once.
                    let load = "\(storage.count) of \(storage.slotCount)"
                    #expect(storage.count * 2 <= storage.slotCount, "\(load)")
                }
                #expect(table.overflowStorage?.slotCount == 512, "200 entries need more than 256 slots")
            }
        }
    }

    @Test("a table with several inline entries fills them first, in order, and allocates only for more")
    func severalInlineEntries() {
        let keys = distinctTypes(40).map(TypeKey.init)
        withTable(TypeTable.self, inline: 4) { table in
            for (index, key) in keys.prefix(4).enumerated() {
                table.insert(Item(index), tag: UInt(index), for: key)
                #expect(table.overflowStorage == nil, "four entries fit inline")
            }
            for (index, key) in keys.enumerated().dropFirst(4) { table.insert(Item(index), tag: 0, for: key) }
            table.checkInvariants()
            #expect(table.overflowStorage?.count == keys.count, "every entry, the inline ones copied")
            for (index, key) in keys.enumerated() { #expect(table.entry(for: key)?.value.number == index) }
            var visited: [Int] = []
            table.forEachEntry { value, _, _ in visited.append(value.number) }
            #expect(Array(visited.prefix(4)) == [0, 1, 2, 3], "inline entries come first, in order")
            #expect(Set(visited) == Set(0..<keys.count))
        }
    }

    @Test(
        "readers on other threads see either nothing or the right entry while a writer inserts under a lock",
        arguments: [1, 4])
    func concurrentReaders(inlineCount: Int) {
        let keys = distinctTypes(800).map(TypeKey.init)
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: TypeTable.wordCount(inline: inlineCount))
        defer { words.deallocate() }
        let table = TypeTable(words: words, inlineCount: inlineCount)
        table.initialize()
        defer { table.destroy() }
        let reading = readConcurrently(Unchecked(table), keys: Unchecked(keys), readers: 3)
        #expect(reading.sawPartlyFilledTable, "no reader looked while the writer was inserting")
        #expect(reading.wrong == 0, "a reader saw a wrong value, tag or key")
        #expect(reading.lost == 0, "a reader lost an entry it had seen")
        #expect(reading.lookups > 0)
        table.checkInvariants()
        for (index, key) in keys.enumerated() { #expect(table.entry(for: key)?.value.number == index) }
    }

    // MARK: Provider keys

    @Test("provider keys differ by file, line, column, function and type, and each finds its own entry")
    func providerKeysDiffer() {
        let base = ProviderKey(file: #fileID, line: 10, column: 5, function: #function, type: Item.self)
        let keys = [
            base,
            providerKeyInFixtures(line: 10, column: 5, function: #function),
            ProviderKey(file: #fileID, line: 11, column: 5, function: #function, type: Item.self),
            ProviderKey(file: #fileID, line: 10, column: 6, function: #function, type: Item.self),
            ProviderKey(file: #fileID, line: 10, column: 5, function: "other()", type: Item.self),
            ProviderKey(file: #fileID, line: 10, column: 5, function: #function, type: Int.self),
        ]
        for (index, key) in keys.enumerated() {
            for (otherIndex, other) in keys.enumerated() where otherIndex != index {
                #expect(key != other, "keys \(index) and \(otherIndex)")
            }
        }
        withTable(LookupTable<ProviderKey, Item>.self) { table in
            for (index, key) in keys.enumerated() { table.insert(Item(index), tag: UInt(index), for: key) }
            table.checkInvariants()
            for (index, key) in keys.enumerated() {
                #expect(table.entry(for: key)?.value.number == index)
                #expect(table.entry(for: key)?.tag == UInt(index))
            }
        }
        #expect(base.functionName == "providerKeysDiffer()")
        #expect(keys[4].functionName == "other()")
    }

    @Test(
        "provider keys found, moved and absent give the same answers with and without the inline home slot, at every size",
        arguments: [1, 4])
    func homeSlotAgrees(inline: Int) {
        // Four keys per hash that differ only by their function's name, so that a key's home slot
        // may hold a neighbour on which the quick comparison cannot decide; a copy of each whose
        // names lie elsewhere; absent keys with and without a stored key's hash.
        let functions = (0..<4).map { TextCopy("provider\($0)()") }
        let copies = (0..<4).map { TextCopy("provider\($0)()") }
        let other = TextCopy("absent()")
        let file = TextCopy(#fileID)
        defer { for text in functions + copies + [other, file] { text.deallocate() } }
        var stored: [ProviderKey] = []
        var moved: [ProviderKey] = []
        var absent: [ProviderKey] = []
        for line in UInt(1)...15 {
            for type in [Item.self, Int.self, String.self] as [Any.Type] {
                let key = ProviderKey(file: #fileID, line: line, column: 7, function: #function, type: type)
                for index in functions.indices {
                    stored.append(key.withNames(file: file, function: functions[index]))
                    moved.append(key.withNames(file: file, function: copies[index]))
                }
                absent.append(key.withNames(file: file, function: other))
                absent.append(
                    ProviderKey(
                        file: #fileID, line: line + 10_000, column: 7, function: #function, type: type))
            }
        }
        withTable(LookupTable<ProviderKey, Item>.self, inline: inline) { table in
            var disagreements = 0
            var wrong = 0
            for (inserted, key) in stored.enumerated() {
                table.insert(Item(inserted), tag: UInt(inserted) &* 3, for: key)
                if inserted < 40 || inserted.isMultiple(of: 25) { table.checkInvariants() }
                for index in 0...inserted {
                    for probe in [stored[index], moved[index]] {
                        let inlined = table.entry(for: probe)
                        let called = table.entry(for: probe, inliningHomeSlot: false)
                        let value = table.value(for: probe)
                        if inlined?.value !== called?.value || inlined?.tag != called?.tag
                            || value !== inlined?.value
                            || table.value(for: probe, inliningHomeSlot: false) !== value
                        {
                            disagreements += 1
                        }
                        if inlined?.value.number != index || inlined?.tag != UInt(index) &* 3 { wrong += 1 }
                    }
                }
                for probe in absent
                where table.entry(for: probe) != nil
                    || table.entry(for: probe, inliningHomeSlot: false) != nil
                {
                    wrong += 1
                }
            }
            #expect(disagreements == 0)
            #expect(wrong == 0)
            #expect(table.overflowStorage?.slotCount == 512, "180 keys need more than 256 slots")
        }
    }

    @Test("a provider key whose names lie at other addresses but read the same is equal and finds the entry")
    func providerKeyEqualByContent() {
        let original = ProviderKey(
            file: #fileID, line: #line, column: #column, function: #function, type: Item.self)
        let file = TextCopy(#fileID)
        let function = TextCopy(#function)
        defer {
            file.deallocate()
            function.deallocate()
        }
        let moved = original.withNames(file: file, function: function)
        #expect(moved.file != original.file && moved.function != original.function)
        #expect(moved == original && original == moved)
        #expect(moved.mixedHash == original.mixedHash)
        #expect(moved.functionName == original.functionName)
        // A second literal with the same text, which the compiler may or may not merge with the first.
        let again = ProviderKey(
            file: "DirkInternalTests/LookupTableTests.swift", line: original.line, column: original.column,
            function: "providerKeyEqualByContent()", type: Item.self)
        #expect(again == original)
        // The same length but other text, or the same text but another length, is another key.
        let otherFile = TextCopy(#fileID, replacingLast: "x")
        let shorterFunction = TextCopy(String("\(#function)".dropLast()))
        defer {
            otherFile.deallocate()
            shorterFunction.deallocate()
        }
        #expect(original.withNames(file: otherFile, function: function) != original)
        #expect(original.withNames(file: file, function: shorterFunction) != original)
        withTable(LookupTable<ProviderKey, Item>.self) { table in
            let item = Item()
            table.insert(item, for: original)
            table.insert(Item(), for: original.withNames(file: otherFile, function: function))
            table.checkInvariants()
            #expect(table.entry(for: moved)?.value === item)
            #expect(table.entry(for: again)?.value === item)
        }
    }

    @Test(
        "among inline entries, a key that only a text comparison finds is found, and a key absent from full inline entries is not",
        arguments: [2, 4])
    func inlineEntriesComparedInFull(inlineCount: Int) {
        let file = TextCopy(#fileID)
        let function = TextCopy(#function)
        defer {
            file.deallocate()
            function.deallocate()
        }
        let keys = (0..<inlineCount).map {
            ProviderKey(file: #fileID, line: 100, column: UInt($0), function: #function, type: Item.self)
        }
        withTable(LookupTable<ProviderKey, Item>.self, inline: inlineCount) { table in
            let absentWhileRoom = ProviderKey(
                file: #fileID, line: 200, column: 1, function: #function, type: Item.self)
            table.insert(Item(0), tag: 0, for: keys[0])
            #expect(table.entry(for: absentWhileRoom) == nil, "an empty inline entry ends the search")
            // Before an empty entry, a key that only the text comparison matches is still found.
            #expect(table.entry(for: keys[0].withNames(file: file, function: function))?.value.number == 0)
            #expect(table.value(for: keys[0].withNames(file: file, function: function))?.number == 0)
            for (index, key) in keys.enumerated().dropFirst() {
                table.insert(Item(index), tag: UInt(index), for: key)
            }
            #expect(table.overflowStorage == nil, "every entry fits inline")
            table.checkInvariants()
            for (index, key) in keys.enumerated() {
                // The same text at other addresses: the quick comparison cannot tell, the full one can.
                let moved = key.withNames(file: file, function: function)
                #expect(table.entry(for: moved)?.value.number == index, "entry \(index), moved")
                #expect(table.entry(for: key)?.tag == UInt(index), "entry \(index)")
            }
            #expect(
                table.entry(for: absentWhileRoom) == nil, "no inline entry is empty: the search compares all")
            #expect(table.entry(for: absentWhileRoom.withNames(file: file, function: function)) == nil)
        }
    }

    @Test(
        "hundreds of provider keys, some alike in all but their names, are each found, also by moved copies")
    func manyProviderKeys() {
        let functions = (0..<4).map { TextCopy("provider\($0)()") }
        let copies = (0..<4).map { TextCopy("provider\($0)()") }
        let file = TextCopy(#fileID)
        defer {
            for text in functions + copies + [file] { text.deallocate() }
        }
        let types: [Any.Type] = [Item.self, Int.self, String.self]
        let template = ProviderKey(file: #fileID, line: 1, column: 1, function: #function, type: Item.self)
        var keys: [ProviderKey] = []
        var moved: [ProviderKey] = []
        for line in UInt(1)...50 {
            for type in types {
                for index in functions.indices {
                    // Keys that differ only by function name share a hash, and probe past each other.
                    let key = ProviderKey(
                        file: #fileID, line: line, column: 7, function: #function, type: type)
                    keys.append(key.withNames(file: file, function: functions[index]))
                    moved.append(key.withNames(file: file, function: copies[index]))
                }
            }
        }
        #expect(keys.count == 600)
        #expect(keys[0].mixedHash == keys[1].mixedHash && keys[0] != keys[1])
        withTable(LookupTable<ProviderKey, Item>.self) { table in
            for (index, key) in keys.enumerated() {
                table.insert(Item(index), tag: UInt(index), for: key)
                if index < 50 || index.isMultiple(of: 50) { table.checkInvariants() }
            }
            table.checkInvariants()
            for index in keys.indices {
                #expect(table.entry(for: keys[index])?.value.number == index)
                #expect(table.entry(for: moved[index])?.value.number == index)
            }
            #expect(table.entry(for: template) == nil)
        }
    }

    @Test(
        "readers of a table keyed by providers see either nothing or the right entry while a writer inserts")
    func concurrentProviderKeyReaders() {
        let keys = (UInt(1)...600).map {
            ProviderKey(file: #fileID, line: $0, column: 3, function: #function, type: Item.self)
        }
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: LookupTable<ProviderKey, Item>.wordCount)
        defer { words.deallocate() }
        let table = LookupTable<ProviderKey, Item>(words: words)
        table.initialize()
        defer { table.destroy() }
        let reading = readConcurrently(Unchecked(table), keys: Unchecked(keys), readers: 2)
        #expect(reading.sawPartlyFilledTable, "no reader looked while the writer was inserting")
        #expect(reading.wrong == 0 && reading.lost == 0)
        table.checkInvariants()
    }

    @Test(
        "a key inserted twice, with the same value or another, is caught by the invariant check",
        arguments: [true, false])
    func duplicateKeyCaught(sameValue: Bool) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [sameValue] in
            let words = UnsafeMutablePointer<UInt>.allocate(capacity: LookupTable<TypeKey, Item>.wordCount)
            let table = LookupTable<TypeKey, Item>(words: words)
            table.initialize()
            let item = Item(1)
            table.insert(Item(0), for: TypeKey(Int.self))
            table.insert(item, for: TypeKey(String.self))
            table.insert(sameValue ? item : Item(2), for: TypeKey(String.self))
            table.checkInvariants()
        }
        #if DEBUG
            // Another value under the key is not what a lookup of the key finds; the same value is.
            let message = standardError(of: result)
            let expected = sameValue ? "a key stored twice" : "an entry its key does not find"
            #expect(message.contains("Dirk internal error: \(expected)"), "\(message)")
        #else
            _ = result
        #endif
    }
}

// MARK: Helpers

private final class FirstModule {}
private final class SecondModule {}

/// Runs `body` with a table over words allocated here, and destroys the table afterwards.
private func withTable<Key, Value>(
    _: LookupTable<Key, Value>.Type, inline inlineCount: Int = 1, _ body: (LookupTable<Key, Value>) -> Void
) {
    let words = UnsafeMutablePointer<UInt>.allocate(
        capacity: LookupTable<Key, Value>.wordCount(inline: inlineCount))
    let table = LookupTable<Key, Value>(words: words, inlineCount: inlineCount)
    table.initialize()
    body(table)
    table.destroy()
    words.deallocate()
}

extension LookupTable {
    /// The overflow storage, read from the last of the owner's words, as the table's layout has it.
    var overflowStorage: Storage? {
        let address = words[Self.wordCount(inline: inlineCount) - 1]
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        return Unmanaged<Storage>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The overflow storage and every storage it outgrew, newest first.
    var storageChain: [Storage] {
        var chain: [Storage] = []
        var storage = overflowStorage
        while let current = storage {
            chain.append(current)
            storage = current.header.predecessor
        }
        return chain
    }
}

/// What readers saw while a writer filled a table.
private struct Reading {
    var lookups = 0
    /// Entries found with a wrong value, tag or key.
    var wrong = 0
    /// Keys found once and missing later.
    var lost = 0
    /// Lookups made while the writer was inserting that found their key, and that did not: both
    /// show a reader that saw the table partly filled.
    var foundWhileWriting = 0
    var missedWhileWriting = 0

    /// Whether readers saw the table partly filled, which is what the test is about.
    var sawPartlyFilledTable: Bool { foundWhileWriting > 0 && missedWhileWriting > 0 }
}

/// Inserts an entry for each of `keys`, numbered and tagged by its index, one by one under a lock,
/// on one thread, while `readers` threads look keys up and walk the table; each reader checks that
/// what it finds is right and that nothing it has found goes missing.
private func readConcurrently<Key: LookupTableKey & SendableMetatype>(
    _ table: Unchecked<LookupTable<Key, Item>>, keys: Unchecked<[Key]>, readers: Int
) -> Reading {
    let lock = Unchecked(Dirk.Locked<Int>.make(0))
    let writing = Counter(start: 1)
    let started = Counter()
    // Lookups made while the writer inserts. The writer waits for one after each insert, so that
    // readers look at every stage of the table however the threads are scheduled: on a busy
    // machine, the writer could otherwise insert everything while the readers are not running.
    let lookupsWhileWriting = Counter()
    let total = DirkTestSupport.Locked(Reading())
    withWatchdog {
        onThreads(readers + 1) { thread in
            if thread == readers {
                waitUntil { started.count == readers }
                for index in keys.value.indices {
                    lock.value.withLock { count in
                        table.value.insert(Item(index), tag: UInt(index), for: keys.value[index])
                        count += 1
                    }
                    let looked = lookupsWhileWriting.count
                    waitUntil { lookupsWhileWriting.count > looked }
                }
                writing.increment()
                return
            }
            started.increment()
            var reading = Reading()
            var found = Set<Int>()
            var index = thread
            while writing.count == 1 || reading.lookups < keys.value.count {
                let key = keys.value[index % keys.value.count]
                reading.lookups += 1
                let isWriting = writing.count == 1
                let entry = table.value.entry(for: key)
                if isWriting && writing.count == 1 {
                    lookupsWhileWriting.increment()
                    if entry == nil {
                        reading.missedWhileWriting += 1
                    } else {
                        reading.foundWhileWriting += 1
                    }
                }
                if let entry {
                    if entry.value.number != index % keys.value.count || entry.tag != UInt(entry.value.number)
                    {
                        reading.wrong += 1
                    }
                    found.insert(entry.value.number)
                } else if found.contains(index % keys.value.count) {
                    reading.lost += 1
                }
                if reading.lookups.isMultiple(of: 97) {
                    var seen = Set<Int>()
                    table.value.forEachEntry { value, tag, key in
                        if !seen.insert(value.number).inserted || tag != UInt(value.number)
                            || key != keys.value[value.number]
                        {
                            reading.wrong += 1
                        }
                    }
                }
                index += 7
            }
            total.withLock {
                $0.lookups += reading.lookups
                $0.wrong += reading.wrong
                $0.lost += reading.lost
                $0.foundWhileWriting += reading.foundWhileWriting
                $0.missedWhileWriting += reading.missedWhileWriting
            }
        }
    }
    return total.withLock { $0 }
}

/// A copy of a name's text in memory of its own, to make keys whose names lie at other addresses.
struct TextCopy {
    let start: UnsafeMutableRawPointer
    let count: Int

    init(_ text: StaticString, replacingLast replacement: Character? = nil) {
        var string = "\(text)"
        if let replacement {
            string.removeLast()
            string.append(replacement)
        }
        self.init(string)
    }

    init(_ text: String) {
        let bytes = Array(text.utf8)
        count = bytes.count
        start = .allocate(byteCount: max(count, 1), alignment: 1)
        start.copyMemory(from: bytes, byteCount: count)
    }

    func deallocate() { start.deallocate() }
}

extension ProviderKey {
    /// The line of the key's position.
    var line: UInt { UInt(position >> 20) }

    /// The column of the key's position.
    var column: UInt { UInt(position & 0xF_FFFF) }

    /// This key with its file and function names read from `file` and `function`: written to words
    /// as a table stores it, with the names' addresses and lengths replaced, and read back.
    func withNames(file: TextCopy, function: TextCopy) -> ProviderKey {
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: Self.wordCount)
        defer { words.deallocate() }
        words.initialize(repeating: 0, count: Self.wordCount)
        store(into: words)
        // The layout of `store(into:)`: type, position, file, file length, function, function length.
        words[2] = UInt(bitPattern: file.start)
        words[3] = UInt(file.count)
        words[4] = UInt(bitPattern: function.start)
        words[5] = UInt(function.count)
        return ProviderKey(loadingFrom: words)
    }
}
