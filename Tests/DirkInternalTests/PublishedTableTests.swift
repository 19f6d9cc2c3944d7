import Dirk
import DirkTestSupport
import Testing

@Suite("The table read without a lock")
struct PublishedTableTests {
    private typealias TypeTable = PublishedTable<TypeKey, Item>

    @Test("an empty table finds nothing and visits nothing", arguments: [0, 1, 4])
    func empty(inline: Int) {
        withTable(TypeTable.self, inline: inline) { table in
            #expect(table.entry(for: TypeKey(Item.self)) == nil)
            #expect(table.value(for: TypeKey(Int.self)) == nil)
            var visits = 0
            table.forEachEntry { _, _, _ in visits += 1 }
            #expect(visits == 0 && table.count == 0)
            table.checkInvariants()
        }
    }

    @Test(
        "every entry is found with its tag, and absent keys are not, through the inline entries and every growth",
        arguments: [(inline: 0, count: 500), (1, 300), (4, 3), (4, 4), (4, 5), (4, 200)])
    func entriesFound(inline: Int, count: Int) {
        let types = distinctTypes(count * 2)
        let stored = types[..<count].map(TypeKey.init)
        let absent = types[count...].map(TypeKey.init)
        withTable(TypeTable.self, inline: inline) { table in
            for (index, key) in stored.enumerated() {
                table.insert(Item(index), tag: UInt(index) * 3, for: key)
                if index < 40 || index.isMultiple(of: 50) { table.checkInvariants() }
                #expect(table.count == index + 1)
            }
            table.checkInvariants()
            for (index, key) in stored.enumerated() {
                let entry = table.entry(for: key)
                #expect(entry?.value.takeUnretainedValue().number == index && entry?.tag == UInt(index) * 3)
                #expect(table.value(for: key)?.number == index)
            }
            for key in absent { #expect(table.entry(for: key) == nil) }
        }
    }

    @Test("forEach visits every entry once, in the order they were inserted, with its tag and key")
    func order() {
        let keys = distinctTypes(300).map(TypeKey.init)
        withTable(TypeTable.self, inline: 2) { table in
            for (index, key) in keys.enumerated() {
                table.insert(Item(index), tag: UInt(index) + 1, for: key)
            }
            var visited: [Int] = []
            table.forEachEntry { value, tag, key in
                visited.append(value.number)
                #expect(tag == UInt(value.number) + 1)
                #expect(key == keys[value.number])
            }
            #expect(visited == Array(0..<300))
            #expect(table.all.map(\.value.number) == Array(0..<300))
            #expect(table.all.map { TypeKey($0.type) } == keys, "the types the entries are stored under")
        }
    }

    @Test(
        "destroy() releases every value, in the inline entries and in every storage",
        arguments: [(inline: 1, count: 300), (4, 0), (4, 1), (4, 4), (4, 5), (4, 40)])
    func destroyReleases(inline: Int, count: Int) {
        let keys = distinctTypes(count).map(TypeKey.init)
        var weakItems: [WeakItem] = []
        withTable(TypeTable.self, inline: inline) { table in
            for (index, key) in keys.enumerated() {
                let item = Item(index)
                weakItems.append(WeakItem(item: item))
                table.insert(item, for: key)
            }
            #expect(weakItems.allSatisfy { $0.item != nil }, "the table holds every value")
        }
        #expect(weakItems.allSatisfy { $0.item == nil }, "a value outlived its table")
    }

    @Test("a table keyed by types gives the value stored under a type as that type")
    func instances() {
        withTable(PublishedTable<TypeKey, AnyObject>.self, inline: 1) { table in
            let first = FirstModule()
            let second = SecondModule()
            table.insert(first, asInstanceOf: FirstModule.self)
            table.insert(second, asInstanceOf: SecondModule.self)
            #expect(table.instance(of: FirstModule.self) === first)
            #expect(table.instance(of: SecondModule.self) === second)
            #expect(table.instance(of: Item.self) == nil)
        }
    }

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
        withTable(PublishedTable<ProviderKey, Item>.self, inline: 4) { table in
            for (index, key) in keys.enumerated() { table.insert(Item(index), tag: UInt(index), for: key) }
            table.checkInvariants()
            for (index, key) in keys.enumerated() { #expect(table.entry(for: key)?.tag == UInt(index)) }
        }
        #expect(base.functionName == "providerKeysDiffer()")
        #expect(keys[4].functionName == "other()")
    }

    @Test(
        "a provider key whose names lie at other addresses but read the same is equal and finds the entry",
        arguments: [1, 4])
    func providerKeyEqualByContent(inline: Int) {
        let original = ProviderKey(
            file: #fileID, line: #line, column: #column, function: #function, type: Item.self)
        let file = TextCopy(#fileID)
        let function = TextCopy(#function)
        let otherFile = TextCopy(#fileID, replacingLast: "x")
        let shorterFunction = TextCopy(String("\(#function)".dropLast()))
        defer { for text in [file, function, otherFile, shorterFunction] { text.deallocate() } }
        let moved = original.withNames(file: file, function: function)
        #expect(moved.file != original.file && moved.function != original.function)
        #expect(moved == original && original == moved)
        #expect(moved.mixedHash == original.mixedHash)
        #expect(original.withNames(file: otherFile, function: function) != original)
        #expect(original.withNames(file: file, function: shorterFunction) != original)
        let functions = (0..<5).map { TextCopy("f\($0)()") }
        defer { for text in functions { text.deallocate() } }
        withTable(PublishedTable<ProviderKey, Item>.self, inline: inline) { table in
            // Neighbours with the same hash first, so that the lookup passes them.
            for other in functions {
                table.insert(Item(), for: original.withNames(file: otherFile, function: other))
            }
            let item = Item()
            table.insert(item, for: original)
            table.checkInvariants()
            #expect(table.value(for: moved) === item)
        }
    }

    @Test(
        "readers on other threads never miss an entry they have seen, nor find a wrong one, while a writer inserts"
    )
    func concurrentReaders() {
        let keys = distinctTypes(400).map(TypeKey.init)
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: TypeTable.wordCount(inline: 4))
        defer { words.deallocate() }
        let table = TypeTable(words: words, inlineCapacity: 4)
        table.initialize()
        defer { table.destroy() }
        let reading = readConcurrently(Unchecked(table), keys: Unchecked(keys), readers: 2)
        #expect(reading.sawPartlyFilledTable, "no reader looked while the writer was inserting")
        #expect(reading.wrong == 0 && reading.lost == 0)
        table.checkInvariants()
    }
}

// MARK: Helpers

private final class FirstModule {}
private final class SecondModule {}

/// Runs `body` with a table over words allocated here, and destroys the table afterwards.
private func withTable<Key, Value>(
    _: PublishedTable<Key, Value>.Type, inline: Int, _ body: (PublishedTable<Key, Value>) -> Void
) {
    let words = UnsafeMutablePointer<UInt>.allocate(
        capacity: PublishedTable<Key, Value>.wordCount(inline: inline))
    let table = PublishedTable<Key, Value>(words: words, inlineCapacity: inline)
    table.initialize()
    body(table)
    table.destroy()
    words.deallocate()
}

/// What readers saw while a writer filled a table.
private struct Reading {
    var lookups = 0
    /// Entries found with a wrong value or tag, or visited twice or with a wrong key.
    var wrong = 0
    /// Keys found once and missing later.
    var lost = 0
    /// Lookups made while the writer was inserting that found their key, and that did not: both
    /// show a reader that saw the table partly filled.
    var foundWhileWriting = 0
    var missedWhileWriting = 0

    var sawPartlyFilledTable: Bool { foundWhileWriting > 0 && missedWhileWriting > 0 }
}

/// Inserts an entry for each of `keys`, numbered and tagged by its index, one by one under a lock,
/// on one thread, while `readers` threads look keys up and walk the table; each reader checks that
/// what it finds is right and that nothing it has found goes missing.
private func readConcurrently<Key: PublishedTableKey & SendableMetatype>(
    _ table: Unchecked<PublishedTable<Key, Item>>, keys: Unchecked<[Key]>, readers: Int
) -> Reading {
    let lock = Unchecked(Dirk.Locked<Int>.make(0))
    let writing = Counter(start: 1)
    let started = Counter()
    // The writer waits for a lookup after each insert, so that readers look at every stage of the
    // table however the threads are scheduled.
    let lookupsWhileWriting = Counter()
    let total = DirkTestSupport.Locked(Reading())
    withWatchdog {
        onThreads(readers + 1) { thread in
            if thread == readers {
                waitUntil { started.count == readers }
                for index in keys.value.indices {
                    lock.value.withLock { _ in
                        table.value.insert(Item(index), tag: UInt(index), for: keys.value[index])
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
                let number = index % keys.value.count
                reading.lookups += 1
                let isWriting = writing.count == 1
                let entry = table.value.entry(for: keys.value[number])
                if isWriting && writing.count == 1 {
                    lookupsWhileWriting.increment()
                    if entry == nil {
                        reading.missedWhileWriting += 1
                    } else {
                        reading.foundWhileWriting += 1
                    }
                }
                if let entry {
                    let value = entry.value.takeUnretainedValue().number
                    if value != number || entry.tag != UInt(number) { reading.wrong += 1 }
                    found.insert(number)
                } else if found.contains(number) {
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
