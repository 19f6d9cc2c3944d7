import Dirk
import DirkTestSupport
import Testing

@Suite("A component's directory of members, read without a lock")
struct DirectoryTests {
    @Test("a member is found by its kind and its type, and by no other")
    func lookups() {
        let box = DirectoryBox()
        let types = distinctTypes(3)
        let (module, parent, ancestor) = (Item(1), Item(2), Item(3))
        #expect(box.member(.module, types[0]) == nil, "an empty directory finds nothing")
        box.add(module, .module, types[0], tag: 5)
        box.add(parent, .parent, types[0])
        box.add(ancestor, .ancestor, types[1], tag: 7)
        #expect(box.found(.module, types[0]) == Found(module, tag: 5))
        #expect(box.found(.parent, types[0]) == Found(parent, tag: 0))
        #expect(box.found(.ancestor, types[1]) == Found(ancestor, tag: 7))
        #expect(box.member(.ancestor, types[0]) == nil, "a type's members of one kind are not of another")
        #expect(box.member(.module, types[1]) == nil && box.member(.parent, types[1]) == nil)
        #expect(box.member(.module, types[2]) == nil, "a type never added is not found")
        #expect(box.member(.module, Item.self) == nil)
    }

    @Test(
        "entries keep their order as the directory grows past its inline entries: the first under a kind and type is found",
        arguments: [3, 40, 100])
    func orderAcrossGrowth(count: Int) {
        let box = DirectoryBox()
        let types = distinctTypes(count)
        let firsts = (0..<count).map { Item($0) }
        for index in 0..<count {
            box.add(firsts[index], .module, types[index], tag: UInt(index))
            // Every member added so far is still found, whole, after each add and each growth.
            #expect(
                (0...index).map { box.found(.module, types[$0]) }
                    == (0...index).map { Found(firsts[$0], tag: UInt($0)) })
        }
        // A second member under each kind and type comes after the first, which is still the one found.
        let seconds = (0..<count).map { Item(count + $0) }
        for index in 0..<count { box.add(seconds[index], .module, types[index], tag: UInt(count + index)) }
        #expect(
            (0..<count).map { box.found(.module, types[$0]) }
                == (0..<count).map { Found(firsts[$0], tag: UInt($0)) })
    }

    @Test(
        "readers on other threads, while a writer adds under the lock, find every member added before they looked, and never a torn one"
    )
    func concurrentReaders() {
        let count = 150
        let readers = 4
        let types = Unchecked(distinctTypes(count))
        for _ in 0..<stressRounds(12) {
            let objects = (0..<count).map { Item($0) }
            let expected = objects.map(ObjectIdentifier.init)
            let box = Unchecked(DirectoryBox())
            // How many adds have returned; the writer sets it after each.
            let added = LockedBox(0)
            let checks = OffThreadChecks()
            withWatchdog {
                onThreads(readers + 1) { thread in
                    if thread == 0 {
                        for index in 0..<count {
                            box.value.add(objects[index], .module, types.value[index], tag: UInt(index))
                            added.withLock { $0 = index + 1 }
                            if index.isMultiple(of: 8) { letOthersRun() }
                        }
                        return
                    }
                    var isDone = false
                    while !isDone {
                        let returned = added.withLock { $0 }
                        isDone = returned == count
                        for index in 0..<min(returned + 4, count) {
                            let found = box.value.member(.module, types.value[index])
                            if let found {
                                // Whole: the object and the tag of one entry, the object alive.
                                checks.check(
                                    ObjectIdentifier(found.object) == expected[index], "member \(index) torn")
                                checks.check(found.tag == UInt(index), "tag of member \(index) torn")
                                checks.check(
                                    (found.object as? Item)?.number == index, "member \(index) corrupt")
                            } else {
                                checks.check(
                                    index >= returned, "member \(index) missed after its add returned")
                            }
                            checks.check(
                                box.value.member(.parent, types.value[index]) == nil,
                                "member \(index) found as another kind")
                        }
                        letOthersRun()
                    }
                }
            }
            checks.expectNone()
            if checks.summary != nil { break }
        }
    }

    @Test("destroying the directory releases every member, inline or in a block", arguments: [3, 40])
    func destroyReleases(count: Int) {
        var probes: [WeakItem] = []
        var box: DirectoryBox? = DirectoryBox()
        let types = distinctTypes(count)
        do {
            for index in 0..<count {
                let item = Item(index)
                probes.append(WeakItem(item: item))
                box?.add(item, .module, types[index])
                // The same object under another kind and type is retained once more.
                if index.isMultiple(of: 2) { box?.add(item, .ancestor, types[count - 1 - index]) }
            }
        }
        #expect(probes.allSatisfy { $0.item != nil }, "the directory holds its members")
        withExtendedLifetime(box) {}
        box = nil
        #expect(probes.allSatisfy { $0.item == nil }, "every member is released")
    }
}

// MARK: Helpers

/// A directory in the extra words of a `Locked` box, whose state is the retired blocks, as a
/// component keeps one: a writer adds under the box's lock, readers look without it, and the box's
/// owner destroys it when it goes, when no reader can reach it.
final class DirectoryBox {
    private let box = Dirk.Locked<[UnsafeMutablePointer<UInt>]>.make([], extraWords: Directory.wordCount)

    /// Runs `body` with the directory, whose words the box keeps.
    private func withDirectory<Result>(_ body: (Directory) -> Result) -> Result {
        box.buffer.withExtraWords { body(Directory(words: $0)) }
    }

    /// Adds `object` as the member of `kind` under `type`, under the box's lock.
    func add(_ object: AnyObject, _ kind: MemberKind, _ type: Any.Type, tag: UInt = 0) {
        withDirectory { directory in
            box.withLock { retired in directory.add(object, kind, type, tag: tag, retired: &retired) }
        }
    }

    /// The member of `kind` under `type`, and its tag, found without the lock.
    func member(_ kind: MemberKind, _ type: Any.Type) -> (object: AnyObject, tag: UInt)? {
        withDirectory { $0.member(kind, type) }
    }

    /// The member of `kind` under `type`, by identity, and its tag.
    func found(_ kind: MemberKind, _ type: Any.Type) -> Found? {
        member(kind, type).map { Found($0.object, tag: $0.tag) }
    }

    deinit {
        withDirectory { directory in box.withLock { directory.destroy(retired: $0) } }
    }
}

/// A member as a comparable summary: its object by identity, and its tag.
struct Found: Equatable {
    let object: ObjectIdentifier
    let tag: UInt

    init(_ object: AnyObject, tag: UInt) {
        (self.object, self.tag) = (ObjectIdentifier(object), tag)
    }
}
