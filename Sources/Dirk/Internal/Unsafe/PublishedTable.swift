import CDirk

/// What a `PublishedTable` finds its values by: a few words, compared by loading them.
@usableFromInline package protocol PublishedTableKey: Equatable {
    /// How many words the key takes in an entry.
    static var wordCount: Int { get }
    /// The key stored at `words`.
    init(loadingFrom words: UnsafeMutablePointer<UInt>)
    /// Stores the key at `words`, with relaxed atomic stores.
    func store(into words: UnsafeMutablePointer<UInt>)
    /// A well-mixed hash; tables use its low bits.
    var mixedHash: Int { get }
}

/// A table of objects by key, each with a tag word, read without a lock and written only while the
/// owner holds its lock. Entries are never removed or changed until the owner destroys the table,
/// and they keep the order in which they were inserted. Dirk's one lock-free structure: a
/// component's modules, parents and ancestors, and a module's provider slots.
///
/// The table lies in words that its owner keeps at a fixed address (a component's own memory, or
/// the elements of a module's slots): a word that points to the table's `Storage` once there is
/// one, a count, and room for `inlineCapacity` entries, so that a small table needs no allocation.
/// An entry is its value (a retained reference), its tag, then its key's words. A storage holds
/// every entry, the inline ones included, in order, with an index for lookups by hash.
///
/// **Why it is safe.** Every word is read and written through C11 atomics. A writer, holding the
/// owner's lock, writes an entry's words first and then publishes the entry with a releasing store
/// (of the count, or of the index slot and then the count); a reader reaches an entry only through
/// an acquiring load of what published it, so it sees the entry whole. A storage that a larger one
/// replaces stays alive, held by its successor (`predecessor`), until the owner destroys the table,
/// so a reader that loaded its address may go on reading it; every entry it published is still in
/// it. The owner destroys the table only when no reader can reach it: in its own `deinit`.
@usableFromInline package struct PublishedTable<Key: PublishedTableKey, Value: AnyObject> {
    @usableFromInline let words: UnsafeMutablePointer<UInt>
    @usableFromInline let inlineCapacity: Int

    /// The words of an entry: the value, the tag, the key.
    @inlinable static var entryWords: Int { 2 + Key.wordCount }

    /// How many words a table with room for `inlineCapacity` inline entries takes.
    @inlinable package static func wordCount(inline inlineCapacity: Int) -> Int {
        2 + inlineCapacity * entryWords
    }

    /// The table in `words`, of `wordCount(inline: inlineCapacity)` words.
    @inlinable package init(words: UnsafeMutablePointer<UInt>, inlineCapacity: Int) {
        self.words = words
        self.inlineCapacity = inlineCapacity
    }

    @inlinable var storageWord: UnsafeMutablePointer<UInt> { words }
    @inlinable var countWord: UnsafeMutablePointer<UInt> { words + 1 }
    @inlinable var inlineEntries: UnsafeMutablePointer<UInt> { words + 2 }

    /// Sets up an empty table in words that nobody reads yet.
    package func initialize() {
        words.initialize(repeating: 0, count: Self.wordCount(inline: inlineCapacity))
    }

    /// Releases the values and the storage; call it once, when no reader can reach the table.
    package func destroy() {
        // The inline entries and every storage each own one reference to each of their values.
        for index in 0..<Int(dirk_load_acquire(countWord)) {
            Unmanaged<Value>.fromOpaque(Self.value(at: inlineEntries + index * Self.entryWords)).release()
        }
        if let storage = storageReference { storage.release() }
    }

    /// The storage, as the table's own reference, which the caller borrows: the table keeps the
    /// storage until it is destroyed.
    @inlinable var storageReference: Unmanaged<Storage>? {
        UnsafeRawPointer(bitPattern: dirk_load_acquire(storageWord)).map { Unmanaged<Storage>.fromOpaque($0) }
    }

    @inlinable var storage: Storage? { storageReference?.takeUnretainedValue() }

    @inlinable static func value(at entry: UnsafeMutablePointer<UInt>) -> UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: dirk_load_relaxed(entry))!
    }

    // MARK: Reading

    /// The entry of `key`, not retained: the table keeps its value until it is destroyed.
    @inlinable @inline(__always)
    package func entry(for key: Key) -> (value: Unmanaged<Value>, tag: UInt)? {
        if dirk_load_acquire(storageWord) == 0 {
            let count = Int(dirk_load_acquire(countWord))
            var entry = inlineEntries
            for _ in 0..<count {
                if Key(loadingFrom: entry + 2) == key {
                    return (Unmanaged.fromOpaque(Self.value(at: entry)), dirk_load_relaxed(entry + 1))
                }
                entry += Self.entryWords
            }
            // A storage published since the first look holds every entry.
            if dirk_load_acquire(storageWord) == 0 { return nil }
        }
        return storageReference!._withUnsafeGuaranteedRef { $0.entry(for: key) }
    }

    /// What `body` returns for the value of `key` as a `T`, lent without a reference count of its
    /// own, if the table holds one under `key` with `tag`; nil otherwise. The owner stores only
    /// instances of `T` with that tag, as the tag tells (what makes the unchecked cast hold); the
    /// table keeps the value until it is destroyed, which its owner does only when no reader can
    /// reach it.
    @inlinable @inline(__always)
    package func withValue<T: AnyObject, Result>(
        for key: Key, tagged tag: UInt, as type: T.Type, _ body: (T) throws -> Result
    ) rethrows -> Result? {
        guard let entry = entry(for: key), entry.tag == tag else { return nil }
        return try Unmanaged<T>.fromOpaque(entry.value.toOpaque())._withUnsafeGuaranteedRef(body)
    }

    /// The value of `key`.
    @inlinable package func value(for key: Key) -> Value? {
        entry(for: key)?.value.takeUnretainedValue()
    }

    /// How many entries the table holds.
    package var count: Int {
        if let storage { return storage.count }
        return Int(dirk_load_acquire(countWord))
    }

    /// Calls `body` with every entry, in the order they were inserted. Entries inserted meanwhile
    /// may be missed.
    package func forEachEntry(_ body: (Value, UInt, Key) -> Void) {
        if let storage {
            storage.forEachEntry(body)
            return
        }
        for index in 0..<Int(dirk_load_acquire(countWord)) {
            let entry = inlineEntries + index * Self.entryWords
            body(
                Unmanaged<Value>.fromOpaque(Self.value(at: entry)).takeUnretainedValue(),
                dirk_load_relaxed(entry + 1), Key(loadingFrom: entry + 2))
        }
    }

    /// Stops the program unless every entry is found by its key, with its value and tag, and no
    /// key is stored twice. A test hook.
    package func checkInvariants() {
        var keys: [Key] = []
        forEachEntry { value, tag, key in
            precondition(!keys.contains(key), "Dirk internal error: a key stored twice")
            keys.append(key)
            let found = entry(for: key)
            precondition(
                found?.value.toOpaque() == Unmanaged.passUnretained(value).toOpaque() && found?.tag == tag,
                "Dirk internal error: an entry its key does not find")
        }
        precondition(keys.count == count, "Dirk internal error: a table's count is off")
    }

    // MARK: Writing

    /// Inserts `value` with `tag` for `key`, which the table does not hold. Call it while holding
    /// the owner's lock.
    package func insert(_ value: Value, tag: UInt = 0, for key: Key) {
        let count = Int(dirk_load_relaxed(countWord))
        if let storage {
            if storage.count < storage.entryCapacity {
                storage.append(value, tag: tag, key: key)
                return
            }
            // The successor keeps the storage it replaces alive; the table's own reference goes.
            let larger = Storage.make(capacity: storage.entryCapacity * 2, copying: storage)
            larger.append(value, tag: tag, key: key)
            dirk_store_release(storageWord, UInt(bitPattern: Unmanaged.passRetained(larger).toOpaque()))
            Unmanaged.passUnretained(storage).release()
            return
        }
        if count < inlineCapacity {
            let entry = inlineEntries + count * Self.entryWords
            Self.write(value, tag: tag, key: key, at: entry)
            dirk_store_release(countWord, UInt(count + 1))
            return
        }
        let storage = Storage.make(capacity: max(8, inlineCapacity * 2), copying: nil)
        forEachEntry { value, tag, key in storage.append(value, tag: tag, key: key) }
        storage.append(value, tag: tag, key: key)
        dirk_store_release(storageWord, UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque()))
    }

    /// Writes an entry that owns one reference to `value`.
    static func write(_ value: Value, tag: UInt, key: Key, at entry: UnsafeMutablePointer<UInt>) {
        key.store(into: entry + 2)
        dirk_store_relaxed(entry + 1, tag)
        dirk_store_relaxed(entry, UInt(bitPattern: Unmanaged.passRetained(value).toOpaque()))
    }

    /// The entries beyond the inline ones, with an index by hash, in one allocation: a count, the
    /// index (`2 * capacity` slots, each zero or an entry's position plus one), then the entries.
    @usableFromInline package final class Storage: ManagedBuffer<Storage.Header, UInt> {
        @usableFromInline package struct Header {
            @usableFromInline let capacity: Int
            /// The storage this one replaced, kept alive for the readers that still use it.
            let predecessor: Storage?
        }

        /// A storage for `capacity` entries, holding first those of `predecessor`, if any.
        static func make(capacity: Int, copying predecessor: Storage?) -> Storage {
            let words = 1 + 2 * capacity + capacity * PublishedTable.entryWords
            let buffer = create(minimumCapacity: words) { _ in
                Header(capacity: capacity, predecessor: predecessor)
            }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: words) }
            predecessor?.forEachEntry { value, tag, key in storage.append(value, tag: tag, key: key) }
            return storage
        }

        deinit {
            // Each storage owns one reference to each of its values.
            for index in 0..<count {
                Unmanaged<Value>.fromOpaque(PublishedTable.value(at: entry(index))).release()
            }
        }

        @inlinable var entryCapacity: Int { header.capacity }
        @inlinable var countWord: UnsafeMutablePointer<UInt> { withUnsafeMutablePointerToElements { $0 } }
        @inlinable var index: UnsafeMutablePointer<UInt> { countWord + 1 }
        @inlinable var count: Int { Int(dirk_load_acquire(countWord)) }

        @inlinable func entry(_ position: Int) -> UnsafeMutablePointer<UInt> {
            index + 2 * entryCapacity + position * PublishedTable.entryWords
        }

        @inlinable func entry(for key: Key) -> (value: Unmanaged<Value>, tag: UInt)? {
            let mask = 2 * entryCapacity - 1
            var slot = key.mixedHash & mask
            while true {
                let position = Int(dirk_load_acquire(index + slot))
                if position == 0 { return nil }
                let entry = entry(position - 1)
                if Key(loadingFrom: entry + 2) == key {
                    return (
                        Unmanaged.fromOpaque(PublishedTable.value(at: entry)), dirk_load_relaxed(entry + 1)
                    )
                }
                slot = (slot + 1) & mask
            }
        }

        func forEachEntry(_ body: (Value, UInt, Key) -> Void) {
            for position in 0..<count {
                let entry = entry(position)
                body(
                    Unmanaged<Value>.fromOpaque(PublishedTable.value(at: entry)).takeUnretainedValue(),
                    dirk_load_relaxed(entry + 1), Key(loadingFrom: entry + 2))
            }
        }

        /// Appends an entry, which there is room for: written, then indexed, then counted, each
        /// with a releasing store.
        func append(_ value: Value, tag: UInt, key: Key) {
            let position = Int(dirk_load_relaxed(countWord))
            precondition(position < entryCapacity, "Dirk internal error: a table storage over its capacity")
            PublishedTable.write(value, tag: tag, key: key, at: entry(position))
            let mask = 2 * entryCapacity - 1
            var slot = key.mixedHash & mask
            while dirk_load_relaxed(index + slot) != 0 { slot = (slot + 1) & mask }
            dirk_store_release(index + slot, UInt(position + 1))
            dirk_store_release(countWord, UInt(position + 1))
        }
    }
}

extension PublishedTable where Key == TypeKey {
    /// Inserts `value` under `type`, of which it must be an instance: what lets `instance(of:)`
    /// cast without a check.
    package func insert(_ value: Value, asInstanceOf type: Any.Type, tag: UInt = 0) {
        // Callers check it first, with a message where a user's value could be of another type.
        assert(
            ClassHierarchy.isInstance(value, of: type),
            "Dirk internal error: a value stored under another type")
        insert(value, tag: tag, for: TypeKey(type))
    }

    /// The value stored under `T`, an instance of `T`.
    @inlinable @inline(__always)
    package func instance<T: AnyObject>(of type: T.Type) -> T? {
        guard let entry = entry(for: TypeKey(T.self)) else { return nil }
        return unsafeDowncast(entry.value.takeUnretainedValue(), to: T.self)
    }
}

extension PublishedTable where Key == TypeKey {
    /// Every entry's value and the type it is stored under, in the order they were inserted.
    package var all: [(type: Any.Type, value: Value)] {
        var all: [(type: Any.Type, value: Value)] = []
        forEachEntry { value, _, key in all.append((key.metatype, value)) }
        return all
    }
}
