/// What a directory entry is: the kinds of member a component finds by type.
@usableFromInline package enum MemberKind: UInt {
    /// A module, under each type it serves.
    case module = 1
    /// A parent, under the type it was registered as.
    case parent = 2
    /// An ancestor that a search found, under the type searched for.
    case ancestor = 3
}

/// The members of a component, each under a type, found without a lock: its modules, its parents,
/// and the ancestors its searches found. Dirk's one lock-free structure, because every provider
/// call goes through an accessor: a lock here would add two mutex operations to every call.
///
/// The directory lies in words its owner keeps at a fixed address (a `Locked` box's extra words): a
/// count, the address of an overflow block, and room for `inlineCapacity` entries, so that a small
/// component's directory needs no allocation. An entry is three words: its key (the type's identity,
/// with the kind in its low bits), a tag, and the object (a retained reference). Entries are never
/// removed or changed until the owner destroys the directory, and they keep their order.
///
/// **Why it is safe.** A writer holds the owner's lock. It initializes an entry's words plainly,
/// where no reader looks yet (beyond the count), then publishes the entry by storing the count with
/// release ordering; a directory that outgrows its inline entries copies them all to a larger
/// block, which it publishes (release) before the count, so that a reader, which loads the count and
/// then the block (both acquiring), finds every entry it counted initialized. Readers load every
/// word through `AtomicWord`; the writer's plain accesses touch only words that no reader looks at
/// yet, or that nobody writes again (the entries it copies). A block that a larger one replaces stays
/// allocated, in `retired`, until the owner destroys the directory, so a reader that loaded its
/// address may go on reading it. The owner destroys the directory only when no reader can reach it:
/// in its `deinit`. Debug builds assert each entry's words as they read and write them.
@usableFromInline package struct Directory {
    @usableFromInline let words: UnsafeMutablePointer<UInt>

    @inlinable static var inlineCapacity: Int { 4 }
    @inlinable package static var wordCount: Int { 2 + inlineCapacity * 3 }

    @inlinable package init(words: UnsafeMutablePointer<UInt>) { self.words = words }

    /// The key of a member of `kind` under `type`.
    @inlinable package static func key(_ kind: MemberKind, _ type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type)) | kind.rawValue
    }

    /// The entries' words and how many entries there are.
    @inlinable var entries: (words: UnsafeMutablePointer<UInt>, count: Int) {
        let count = Int(AtomicWord(words).acquired)
        let block = UnsafeMutablePointer<UInt>(bitPattern: AtomicWord(words + 1).acquired)
        assert(block != nil || count <= Self.inlineCapacity, "Dirk internal error: \(count) entries inline")
        return (block ?? words + 2, count)
    }

    /// The object of the entry at `entry`, which the directory retains.
    @inlinable @inline(__always)
    static func object(at entry: UnsafeMutablePointer<UInt>) -> Unmanaged<AnyObject> {
        assert(AtomicWord(entry).relaxed & 3 != 0, "Dirk internal error: a directory entry without a kind")
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: AtomicWord(entry + 2).relaxed)!)
    }

    /// The member of `kind` under `type`, and its tag.
    @inlinable package func member(_ kind: MemberKind, _ type: Any.Type) -> (object: AnyObject, tag: UInt)? {
        let key = Self.key(kind, type)
        let (entries, count) = entries
        var index = 0
        while index < count {
            let entry = entries + index &* 3
            if AtomicWord(entry).relaxed == key {
                return (Self.object(at: entry).takeUnretainedValue(), AtomicWord(entry + 1).relaxed)
            }
            index &+= 1
        }
        return nil
    }

    /// The members of `kind`, in the order they were added, each once per type it is under, with
    /// the key of that type. It reads, as it goes and without allocating, the entries counted when
    /// it was made, which stay where they are (see above); use it while the owner lives.
    package struct Members: Sequence, IteratorProtocol {
        let entries: (words: UnsafeMutablePointer<UInt>, count: Int), kind: MemberKind
        var index = 0

        package mutating func next() -> (object: AnyObject, key: UInt)? {
            while index < entries.count {
                let entry = entries.words + index * 3
                index += 1
                let key = AtomicWord(entry).relaxed
                guard key & 3 == kind.rawValue else { continue }
                return (Directory.object(at: entry).takeUnretainedValue(), key)
            }
            return nil
        }
    }

    /// The members of `kind` (see `Members`).
    package func members(_ kind: MemberKind) -> Members { Members(entries: entries, kind: kind) }

    /// Adds `object` as the member of `kind` under `type`, with `tag`. Call it holding the owner's
    /// lock, and keep `retired` under it too.
    package func add(
        _ object: AnyObject, _ kind: MemberKind, _ type: Any.Type, tag: UInt = 0,
        retired: inout [UnsafeMutablePointer<UInt>]
    ) {
        var (target, count) = entries
        let hasBlock = AtomicWord(words + 1).relaxed != 0
        // The inline entries fill first, then blocks of 8, 16, 32 entries, each full at a power of two.
        if hasBlock ? count >= 8 && count.nonzeroBitCount == 1 : count == Self.inlineCapacity {
            let block = UnsafeMutablePointer<UInt>.allocate(capacity: count * 2 * 3)
            block.initialize(from: target, count: count * 3)
            if hasBlock { retired.append(target) }
            AtomicWord(words + 1).release(UInt(bitPattern: block))
            target = block
        }
        let entry = target + count * 3
        entry.initialize(to: Self.key(kind, type))
        (entry + 1).initialize(to: tag)
        (entry + 2).initialize(to: UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
        AtomicWord(words).release(UInt(count + 1))
    }

    /// Releases every member and frees the blocks; call it once, when no reader can reach the
    /// directory.
    package func destroy(retired: [UnsafeMutablePointer<UInt>]) {
        let (entries, count) = entries
        for index in 0..<count { Self.object(at: entries + index * 3).release() }
        if entries != words + 2 { entries.deallocate() }
        for block in retired { block.deallocate() }
    }
}
