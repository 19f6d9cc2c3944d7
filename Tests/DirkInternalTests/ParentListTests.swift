import Dirk
import DirkTestSupport
import Testing

@Suite("The lock-free list of parents")
struct ParentListTests {
    @Test("an empty list is empty, finds no parent and visits none")
    func empty() {
        withList { list in
            #expect(list.isEmpty)
            #expect(list.element(registeredAs: Item.self) == nil)
            #expect(list.parent(registeredAs: Item.self) == nil)
            #expect(list.all.isEmpty)
            var visits = 0
            // `forEach` is the list's own, under test, not `Sequence.forEach`.
            list.forEachParent { _, _ in
                visits += 1
                return true
            }
            #expect(visits == 0)
            list.checkInvariants()
        }
    }

    @Test("parents are found by the type they were registered as, and by no other")
    func lookup() {
        let types = distinctTypes(12)
        withList { list in
            let items = types.indices.map { Item($0) }
            for (item, type) in zip(items, types) {
                list.append(item, as: type)
                list.checkInvariants()
                #expect(!list.isEmpty)
            }
            for (item, type) in zip(items, types) {
                #expect(list.element(registeredAs: type) === item)
            }
            #expect(list.element(registeredAs: Item.self) == nil)
            #expect(list.element(registeredAs: distinctTypes(13)[12]) == nil)
        }
    }

    @Test("the list's contents change with every parent registered, and only then")
    func contentsChangeWithEveryRegistration() {
        let types = distinctTypes(4)
        withList { list in
            var seen = [list.contents]
            #expect(list.contents == seen[0], "reading changes nothing")
            for (index, type) in types.enumerated() {
                list.append(Item(index), as: type)
                #expect(!seen.contains(list.contents), "after \(index + 1) parents")
                seen.append(list.contents)
                #expect(list.contents == seen.last)
            }
        }
    }

    @Test("a parent registered as its own type is found as that type")
    func typedLookup() {
        withList { list in
            let item = Item(1)
            list.append(Item(0), as: Int.self)
            list.append(item, as: Item.self)
            list.checkInvariants()
            let found: Item? = list.parent(registeredAs: Item.self)
            #expect(found === item)
        }
    }

    @Test("forEach and all give the parents in registration order, and forEach stops when its body says so")
    func order() {
        let types = distinctTypes(20)
        withList { list in
            for (index, type) in types.enumerated() { list.append(Item(index), as: type) }
            list.checkInvariants()
            #expect(list.all.map(\.element.number) == Array(0..<20))
            #expect(list.all.map { ObjectIdentifier($0.type) } == types.map(ObjectIdentifier.init))
            var visited: [Int] = []
            list.forEachParent { type, element in
                visited.append(element.number)
                #expect(ObjectIdentifier(type) == ObjectIdentifier(types[element.number]))
                return element.number < 6
            }
            #expect(visited == Array(0...6))
            visited = []
            list.forEachParent { _, element in
                visited.append(element.number)
                return false
            }
            #expect(visited == [0])
        }
    }

    @Test("destroy() releases every parent")
    func destroyReleases() {
        let types = distinctTypes(30)
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: ParentList<Item>.wordCount)
        defer { words.deallocate() }
        let list = ParentList<Item>(words: words)
        list.initialize()
        var probes: [WeakItem] = []
        for (index, type) in types.enumerated() {
            let item = Item(index)
            probes.append(WeakItem(item: item))
            list.append(item, as: type)
        }
        #expect(probes.allSatisfy { $0.item != nil }, "the list keeps its parents alive")
        list.destroy()
        #expect(probes.allSatisfy { $0.item == nil }, "destroy() must release every parent")
    }

    @Test(
        "readers on other threads see a prefix of the registration order while a writer appends under a lock")
    func concurrentReaders() {
        let types = Unchecked(distinctTypes(300))
        let readers = 3
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: ParentList<Item>.wordCount)
        defer { words.deallocate() }
        let list = Unchecked(ParentList<Item>(words: words))
        list.value.initialize()
        defer { list.value.destroy() }
        let lock = Unchecked(Dirk.Locked<Int>.make(0))
        let started = Counter()
        let writing = Counter(start: 1)
        let problems = DirkTestSupport.Locked<[String]>([])
        let walks = Counter()
        // Walks that saw some parents but not all: readers that read while the writer appended.
        let partialWalks = Counter()
        withWatchdog {
            onThreads(readers + 1) { thread in
                if thread == readers {
                    waitUntil { started.count == readers }
                    for (index, type) in types.value.enumerated() {
                        lock.value.withLock { count in
                            list.value.append(Item(index), as: type)
                            count += 1
                        }
                        // A walk after each append, however the threads are scheduled: on a busy
                        // machine, the writer could otherwise append everything while the
                        // readers are not running.
                        let walked = walks.count
                        waitUntil { walks.count > walked }
                    }
                    writing.increment()
                    return
                }
                started.increment()
                var longest = 0
                var lookup = thread
                while writing.count == 1 || walks.count < 3 * readers {
                    let seen = list.value.all
                    walks.increment()
                    if !seen.isEmpty && seen.count < types.value.count { partialWalks.increment() }
                    let isPrefix = seen.enumerated().allSatisfy { index, parent in
                        parent.element.number == index
                            && ObjectIdentifier(parent.type) == ObjectIdentifier(types.value[index])
                    }
                    if !isPrefix { problems.withLock { $0.append("a walk out of registration order") } }
                    if seen.count < longest { problems.withLock { $0.append("a walk lost parents") } }
                    longest = max(longest, seen.count)
                    let index = lookup % types.value.count
                    if let found = list.value.element(registeredAs: types.value[index]) {
                        if found.number != index {
                            problems.withLock { $0.append("a wrong parent for a type") }
                        }
                    } else if index < longest {
                        problems.withLock { $0.append("a parent seen in a walk and missed by a lookup") }
                    }
                    lookup += 17
                }
            }
        }
        #expect(partialWalks.count > 0, "no reader walked the list while the writer appended")
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 })")
        list.value.checkInvariants()
        #expect(list.value.all.count == 300)
    }

    @Test("a type registered twice is caught by the invariant check")
    func duplicateTypeCaught() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let words = UnsafeMutablePointer<UInt>.allocate(capacity: ParentList<Item>.wordCount)
            let list = ParentList<Item>(words: words)
            list.initialize()
            list.append(Item(0), as: Int.self)
            list.append(Item(1), as: String.self)
            list.append(Item(2), as: Int.self)
            list.checkInvariants()
        }
        #if DEBUG
            let message = standardError(of: result)
            #expect(message.contains("Dirk internal error: two parents registered as one type"), "\(message)")
        #else
            _ = result
        #endif
    }
}

/// Runs `body` with a list over words allocated here, and destroys the list afterwards.
private func withList(_ body: (ParentList<Item>) -> Void) {
    let words = UnsafeMutablePointer<UInt>.allocate(capacity: ParentList<Item>.wordCount)
    let list = ParentList<Item>(words: words)
    list.initialize()
    body(list)
    list.destroy()
    words.deallocate()
}
