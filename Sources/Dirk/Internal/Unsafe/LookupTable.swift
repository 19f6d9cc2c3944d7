import CDirk

/// A key that a `LookupTable` stores as a few machine words.
@usableFromInline package protocol LookupTableKey: Equatable {
    /// How many words the key takes.
    static var wordCount: Int { get }
    /// Reads a key that `store(into:)` wrote, with relaxed atomic loads.
    init(loadingFrom words: UnsafeMutablePointer<UInt>)
    /// Writes the key with relaxed atomic stores.
    func store(into words: UnsafeMutablePointer<UInt>)
    /// A well-mixed hash; tables use its low bits.
    var mixedHash: Int { get }
    /// Whether `store(into:)` wrote this key at `words`: equality with the stored key, which a key
    /// may decide word by word, stopping at the first that differs.
    func isStored(at words: UnsafeMutablePointer<UInt>) -> Bool
    /// `isStored(at:)` as far as a few loads and comparisons tell, or nil when only
    /// `isStored(at:)` can: lookups try it first, so that their loops call nothing.
    func isStoredQuickly(at words: UnsafeMutablePointer<UInt>) -> Bool?
}

extension LookupTableKey {
    @inlinable package func isStored(at words: UnsafeMutablePointer<UInt>) -> Bool {
        Self(loadingFrom: words) == self
    }

    @inlinable package func isStoredQuickly(at words: UnsafeMutablePointer<UInt>) -> Bool? {
        isStored(at: words)
    }
}

/// An append-only hash table whose reads take no lock and touch no reference count: a component's
/// modules and ancestors, a module's provider slots.
///
/// **Why reads are safe.** Entries are never removed or replaced while the table exists, so a
/// reader that holds the table's owner may use what it finds for as long as it holds the owner.
/// Each entry is an object reference, a small tag and a key. A writer, holding the owner's lock,
/// stores the key and tag first and then publishes the value with a releasing store; a reader loads
/// the value with an acquiring load and only then the key, so a reader that sees a value sees its
/// key. The table owns one reference to each value (`Unmanaged.passRetained`), released by
/// `destroy()` when the owner goes; readers turn the value's address back into a reference, which
/// the table's reference keeps alive.
///
/// **Layout.** The table is a view of words that its owner allocates (`wordCount(inline:)`):
/// the first few entries live inline, so a small table (a request component's modules, a module's
/// only provider) allocates nothing; later entries go to an overflow storage, a
/// power-of-two array probed linearly, which starts with a copy of the inline entries, so that a
/// table that has one finds every key in it with one probe sequence. When it passes half full,
/// the writer copies it into one twice the size and publishes that; the new storage keeps the old
/// one alive, since a reader may still be probing it.
@usableFromInline package struct LookupTable<Key: LookupTableKey, Value: AnyObject> {
    /// The owner's words: `inlineCount` entries of a value, a tag and a key (`Key.wordCount`
    /// words), then the overflow storage.
    @usableFromInline package let words: UnsafeMutablePointer<UInt>
    /// How many entries live in the owner's words before any goes to an overflow storage.
    @usableFromInline package let inlineCount: Int

    /// How many words a table with `inlineCount` inline entries takes.
    @inlinable package static func wordCount(inline inlineCount: Int) -> Int {
        inlineCount * Storage.entryWords + 1
    }

    /// How many words a table with one inline entry takes.
    @inlinable package static var wordCount: Int { wordCount(inline: 1) }

    /// A table over `words`, which the owner allocated and keeps, with `inlineCount` inline
    /// entries; `initialize()` it once.
    @inlinable package init(words: UnsafeMutablePointer<UInt>, inlineCount: Int = 1) {
        self.words = words
        self.inlineCount = inlineCount
    }

    /// The inline entry `index`: its value, then its tag, then its key.
    @inlinable func inlineEntry(_ index: Int) -> UnsafeMutablePointer<UInt> {
        words + index &* Storage.entryWords
    }
    @usableFromInline var overflow: UnsafeMutablePointer<UInt> { words + inlineCount &* Storage.entryWords }

    /// Sets the table empty; call it once, before anyone can read the table.
    package func initialize() {
        words.initialize(repeating: 0, count: Self.wordCount(inline: inlineCount))
    }

    /// Releases every value and the storages; call it once, when the owner goes.
    package func destroy() {
        // Inline entries are filled in order, and all of them before the storage: an empty one
        // ends them, and means there is no storage.
        for index in 0..<inlineCount {
            guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(inlineEntry(index))) else {
                return
            }
            Unmanaged<Value>.fromOpaque(value).release()
        }
        if let storage = UnsafeRawPointer(bitPattern: dirk_load_acquire(overflow)) {
            Unmanaged<Storage>.fromOpaque(storage).release()
        }
    }

    /// The entry stored under `key`, or nil. Safe from any thread without a lock.
    /// `inliningHomeSlot`: see `unretainedEntry(for:inliningHomeSlot:)`.
    @inlinable @inline(__always)
    package func entry(for key: Key, inliningHomeSlot: Bool = true) -> (value: Value, tag: UInt)? {
        guard let entry = unretainedEntry(for: key, inliningHomeSlot: inliningHomeSlot) else { return nil }
        return (entry.value.takeUnretainedValue(), entry.tag)
    }

    /// The entry stored under `key`, not retained, or nil. Safe from any thread without a lock.
    ///
    /// The table keeps the value alive for as long as its owner lives, so a caller that holds the
    /// owner may use the value for as long as it does, without a reference count of its own.
    ///
    /// Inlined into every caller: a cached provider's read makes this lookup on every call, and
    /// its constant key's comparisons fold into the provider's code. A key that the inline entries'
    /// quick comparisons neither find nor rule out takes one call, the only place that passes the
    /// key on, so that a hit does not lay the key out in memory. (Speed only; measured with
    /// `Benchmarks/Scripts/callgrind.sh`: `single` 222 to 197 instructions; `single_xmod` 195 to
    /// 182.)
    ///
    /// Once the table has a storage, the slot that the key hashes to is compared inline too, unless
    /// `inliningHomeSlot` is false (a constant at every call): a cached read of a module with more
    /// providers than inline entries then takes no call (`scale1000` 235 to 191 instructions), and
    /// a slow path, where the call costs little, keeps its code small.
    @inlinable @inline(__always)
    package func unretainedEntry(
        for key: Key, inliningHomeSlot: Bool = true
    ) -> (value: Unmanaged<Value>, tag: UInt)? {
        unretainedEntry(for: key, loadingTag: true, inliningHomeSlot: inliningHomeSlot)
    }

    /// `unretainedEntry(for:inliningHomeSlot:)`, whose tag is zero for a key that the quick
    /// comparisons find unless `loadingTag` (a constant at every call): a caller that wants the
    /// value only loads no tag.
    @inlinable @inline(__always)
    func unretainedEntry(
        for key: Key, loadingTag: Bool, inliningHomeSlot: Bool
    ) -> (value: Unmanaged<Value>, tag: UInt)? {
        // A storage holds every entry, the inline ones included.
        let storage = dirk_load_acquire(overflow)
        if storage == 0 {
            switch quickInlineLookup(for: key) {
            case .found(let value, let entry): return (value, loadingTag ? dirk_load_relaxed(entry + 1) : 0)
            // The key may be in a storage published since the first look.
            case .absent where dirk_load_acquire(overflow) == 0: return nil
            case .absent, .undecided: break
            }
        } else if inliningHomeSlot,
            let entry = Storage.quickHomeLookup(for: key, in: storage, loadingTag: loadingTag)
        {
            return entry
        }
        return unretainedEntrySlowly(for: key, storage: storage)
    }

    /// What the inline entries' quick comparisons (`isStoredQuickly(at:)`) tell of `key`.
    @usableFromInline enum QuickLookup {
        /// The value stored under `key`, not retained, and its entry's words.
        case found(Unmanaged<Value>, entry: UnsafeMutablePointer<UInt>)
        /// No inline entry holds `key`, and an empty one ends them.
        case absent
        /// Only a text comparison can tell, or every inline entry is taken.
        case undecided
    }

    @inlinable @inline(__always)
    func quickInlineLookup(for key: Key) -> QuickLookup {
        var index = 0
        while index < inlineCount {
            let entry = inlineEntry(index)
            // Inline entries are filled in order, and before the storage: an empty one ends them.
            guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) else { return .absent }
            guard let isStored = key.isStoredQuickly(at: entry + 2) else { return .undecided }
            if isStored { return .found(Unmanaged<Value>.fromOpaque(value), entry: entry) }
            index &+= 1
        }
        return .undecided
    }

    /// `unretainedEntry(for:)` when the inline entries' quick comparisons did not find the key:
    /// the storage at `storageAddress` if the caller found one, else the inline entries compared
    /// in full, then the storage that may have been published since. The storage's probe is
    /// inlined here.
    @inlinable @inline(never)
    func unretainedEntrySlowly(
        for key: Key, storage storageAddress: UInt
    ) -> (value: Unmanaged<Value>, tag: UInt)? {
        var storage = UnsafeRawPointer(bitPattern: storageAddress)
        if storage == nil {
            if let entry = unretainedInlineEntry(for: key) { return entry }
            // The key may be in a storage published since the first look.
            storage = UnsafeRawPointer(bitPattern: dirk_load_acquire(overflow))
        }
        guard let storage else { return nil }
        // The table holds the storage until `destroy()`, which runs only when the owner goes, and
        // the caller holds the owner; a storage that the table has outgrown since the caller read
        // its address is held by the storage that replaced it (`predecessor`), and still holds
        // every entry published before it was replaced.
        return Unmanaged<Storage>.fromOpaque(storage)._withUnsafeGuaranteedRef {
            $0.unretainedEntry(for: key)
        }
    }

    /// The inline entry stored under `key`, not retained, or nil, comparing in full.
    @inlinable
    func unretainedInlineEntry(for key: Key) -> (value: Unmanaged<Value>, tag: UInt)? {
        // Inline entries are filled in order, and before the storage: an empty one ends them.
        for index in 0..<inlineCount {
            let entry = inlineEntry(index)
            guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) else { return nil }
            if key.isStored(at: entry + 2) {
                return (Unmanaged<Value>.fromOpaque(value), dirk_load_relaxed(entry + 1))
            }
        }
        return nil
    }

    /// The value stored under `key`, whatever its tag, or nil. Safe from any thread without a lock.
    /// `inliningHomeSlot`: see `unretainedEntry(for:inliningHomeSlot:)`.
    @inlinable @inline(__always)
    package func value(for key: Key, inliningHomeSlot: Bool = true) -> Value? {
        unretainedEntry(for: key, loadingTag: false, inliningHomeSlot: inliningHomeSlot)?.value
            .takeUnretainedValue()
    }

    /// Stores `value` with `tag` under `key`, which must not be present. Call it while holding the
    /// owner's lock.
    @usableFromInline package func insert(_ value: Value, tag: UInt = 0, for key: Key) {
        for index in 0..<inlineCount where dirk_load_relaxed(inlineEntry(index)) == 0 {
            let entry = inlineEntry(index)
            key.store(into: entry + 2)
            dirk_store_relaxed(entry + 1, tag)
            dirk_store_release(entry, UInt(bitPattern: Unmanaged.passRetained(value).toOpaque()))
            return
        }
        let storage: Storage
        if let address = UnsafeRawPointer(bitPattern: dirk_load_relaxed(overflow)) {
            let existing = Unmanaged<Storage>.fromOpaque(address).takeUnretainedValue()
            if Storage.canHold(existing.count + 1, slots: existing.slotCount) {
                storage = existing
            } else {
                storage = Storage.make(capacity: existing.slotCount * 2, copying: existing)
                // The new storage takes over the table's reference to the old one.
                dirk_store_release(overflow, UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque()))
                Unmanaged.passUnretained(existing).release()
            }
        } else {
            storage = Storage.make(capacity: Storage.slotCount(toHold: inlineCount + 1), copying: nil)
            // The inline entries first, the table's only ones until the storage is published, each
            // with a reference of the storage's own.
            forEachEntry { value, tag, key in storage.insert(value, tag: tag, for: key) }
            dirk_store_release(overflow, UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque()))
        }
        storage.insert(value, tag: tag, for: key)
    }

    /// Calls `body` with every value and tag, first entry first. Safe from any thread; entries
    /// added meanwhile may be missed.
    package func forEachValue(_ body: (Value, UInt) -> Void) {
        forEachEntry { value, tag, _ in body(value, tag) }
    }

    /// Calls `body` with every value, tag and key, first entry first. Safe from any thread;
    /// entries added meanwhile may be missed.
    package func forEachEntry(_ body: (Value, UInt, Key) -> Void) {
        for index in 0..<inlineCount {
            let entry = inlineEntry(index)
            guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) else { return }
            body(
                Unmanaged<Value>.fromOpaque(value).takeUnretainedValue(), dirk_load_relaxed(entry + 1),
                Key(loadingFrom: entry + 2))
        }
        guard let storage = UnsafeRawPointer(bitPattern: dirk_load_acquire(overflow)) else { return }
        Unmanaged<Storage>.fromOpaque(storage).takeUnretainedValue().forEachEntry { value, tag, key in
            // The storage's copies of the inline entries, which `body` has seen already.
            if unretainedInlineEntry(for: key) != nil { return }
            body(Unmanaged<Value>.fromOpaque(value).takeUnretainedValue(), tag, key)
        }
    }

    /// Stops the program if the table is inconsistent: an entry that a lookup of its own key does
    /// not find, a storage more than half full, or a count that does not match its entries. Call
    /// it when no writer can run.
    package func checkInvariants() {
        var keys: [Key] = []
        forEachEntry { value, _, key in
            keys.append(key)
            precondition(
                entry(for: key)?.value === value, "Dirk internal error: an entry its key does not find")
            precondition(
                entry(for: key, inliningHomeSlot: false)?.value === value,
                "Dirk internal error: an entry its key finds only at its home slot")
        }
        for (index, key) in keys.enumerated() {
            precondition(!keys[..<index].contains(key), "Dirk internal error: a key stored twice")
        }
        if let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(overflow)) {
            let storage = Unmanaged<Storage>.fromOpaque(address).takeUnretainedValue()
            precondition(
                Storage.canHold(storage.count, slots: storage.slotCount),
                "Dirk internal error: a storage over half full")
            precondition(storage.count == keys.count, "Dirk internal error: a storage's count is off")
        }
    }

    /// One power-of-two array of entries, probed linearly: per entry a value, a tag and the key.
    @usableFromInline package final class Storage: ManagedBuffer<Storage.Header, UInt> {
        @usableFromInline package struct Header {
            @usableFromInline package let capacity: Int
            /// Written only while holding the owner's lock.
            package var count = 0
            /// The outgrown storage, kept alive for readers that still probe it.
            package let predecessor: Storage?
        }

        @inlinable package static var entryWords: Int { 2 + Key.wordCount }

        /// Whether a storage of `slots` slots may hold `count` entries: at most half of them, so
        /// that a lookup that finds its key probes 1.5 slots on average. (A limit of three-eighths
        /// took `scale1000`'s 1,000 providers from 2,048 slots to 4,096 and from 1.5 probes to
        /// 1.2, a few instructions per lookup, but `cold1000` from 3.34 to 3.98 million
        /// instructions, most of them copying and re-counting entries into the larger storages.)
        package static func canHold(_ count: Int, slots: Int) -> Bool { count * 2 <= slots }

        /// The fewest slots, a power of two and at least 8, that can hold `count` entries.
        static func slotCount(toHold count: Int) -> Int {
            var slots = 8
            while !canHold(count, slots: slots) { slots *= 2 }
            return slots
        }

        package static func make(capacity: Int, copying predecessor: Storage?) -> Storage {
            let buffer = create(minimumCapacity: capacity * entryWords) { _ in
                Header(capacity: capacity, predecessor: predecessor)
            }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements {
                $0.initialize(repeating: 0, count: capacity * entryWords)
            }
            predecessor?.forEachEntry { value, tag, key in
                storage.insert(Unmanaged<Value>.fromOpaque(value).takeUnretainedValue(), tag: tag, for: key)
            }
            return storage
        }

        deinit {
            // Every storage holds its own reference to each of its values. Only the values are
            // read: the deinitializer of a generic class runs unspecialized, and reading each key,
            // through the key type's witnesses, cost `cold1000` about 180 instructions per
            // provider, in its outgrown storages as in its last. (Speed only.)
            let capacity = slotCount
            let entryWords = Self.entryWords
            withUnsafeMutablePointerToElements { entries in
                for index in 0..<capacity {
                    let entry = entries + index &* entryWords
                    if let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) {
                        Unmanaged<Value>.fromOpaque(value).release()
                    }
                }
            }
        }

        /// How many entries fit, read without touching `count`, which writers change.
        @inlinable package var slotCount: Int {
            withUnsafeMutablePointerToHeader { $0.pointer(to: \.capacity)!.pointee }
        }

        /// How many entries the storage holds. Call it while holding the owner's lock.
        package var count: Int {
            withUnsafeMutablePointerToHeader { $0.pointer(to: \.count)!.pointee }
        }

        /// The entry stored under `key`, probing from its hash's slot, or from `start`; compared
        /// quickly (`isStoredQuickly(at:)`) unless `comparingText`, and from the first entry that
        /// only a text comparison can tell on, in a call of its own, in full.
        @inlinable @inline(__always)
        package func unretainedEntry(
            for key: Key, from start: Int? = nil, comparingText: Bool = false
        ) -> (value: Unmanaged<Value>, tag: UInt)? {
            let mask = slotCount &- 1
            return withUnsafeMutablePointerToElements { entries in
                var index = start ?? key.mixedHash & mask
                while true {
                    let entry = entries + index &* Self.entryWords
                    guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) else {
                        return nil
                    }
                    guard
                        let isStored = comparingText
                            ? key.isStored(at: entry + 2) : key.isStoredQuickly(at: entry + 2)
                    else { return unretainedEntryComparingText(for: key, from: index) }
                    if isStored { return (Unmanaged<Value>.fromOpaque(value), dirk_load_relaxed(entry + 1)) }
                    index = (index &+ 1) & mask
                }
            }
        }

        /// The entry in the slot that `key` hashes to, found by the quick comparisons
        /// (`isStoredQuickly(at:)`) alone, not retained, with its tag unless `loadingTag` is false
        /// (then zero); nil when that slot holds another key, none, or one that only a full
        /// comparison can tell. A storage at most half full finds most keys there, so a hit takes
        /// no call. (Speed only.)
        ///
        /// `address` is a storage the caller's table holds, and the caller holds the table's owner
        /// (see `unretainedEntrySlowly(for:storage:)`).
        @inlinable @inline(__always)
        static func quickHomeLookup(
            for key: Key, in address: UInt, loadingTag: Bool
        ) -> (value: Unmanaged<Value>, tag: UInt)? {
            Unmanaged<Storage>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)._withUnsafeGuaranteedRef {
                storage in
                let index = key.mixedHash & (storage.slotCount &- 1)
                return storage.withUnsafeMutablePointerToElements { entries in
                    let entry = entries + index &* entryWords
                    guard let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)),
                        key.isStoredQuickly(at: entry + 2) == true
                    else { return nil }
                    return (Unmanaged<Value>.fromOpaque(value), loadingTag ? dirk_load_relaxed(entry + 1) : 0)
                }
            }
        }

        /// `unretainedEntry(for:)` from the entry at `start` on, comparing text.
        @inlinable @inline(never)
        func unretainedEntryComparingText(
            for key: Key, from start: Int
        ) -> (value: Unmanaged<Value>, tag: UInt)? {
            unretainedEntry(for: key, from: start, comparingText: true)
        }

        /// Publishes `value`, retaining it. Call it while holding the owner's lock.
        package func insert(_ value: Value, tag: UInt, for key: Key) {
            let mask = slotCount &- 1
            withUnsafeMutablePointers { header, entries in
                var index = key.mixedHash & mask
                while dirk_load_relaxed(entries + index &* Self.entryWords) != 0 {
                    index = (index &+ 1) & mask
                }
                let entry = entries + index &* Self.entryWords
                key.store(into: entry + 2)
                dirk_store_relaxed(entry + 1, tag)
                dirk_store_release(entry, UInt(bitPattern: Unmanaged.passRetained(value).toOpaque()))
                header.pointer(to: \.count)!.pointee += 1
            }
        }

        /// Calls `body` with the address of every value, its tag and its key.
        package func forEachEntry(_ body: (UnsafeRawPointer, UInt, Key) -> Void) {
            let capacity = slotCount
            withUnsafeMutablePointerToElements { entries in
                for index in 0..<capacity {
                    let entry = entries + index * Self.entryWords
                    if let value = UnsafeRawPointer(bitPattern: dirk_load_acquire(entry)) {
                        body(value, dirk_load_relaxed(entry + 1), Key(loadingFrom: entry + 2))
                    }
                }
            }
        }
    }
}

extension LookupTable where Key == TypeKey {
    /// Stores `value` under the key of `type`, of which it must be an instance (a module
    /// registered for its base class is an instance of the base class). Call it while holding the
    /// owner's lock.
    package func insert(_ value: Value, asInstanceOf type: Any.Type) {
        // What makes `instance(of:)`'s cast hold; callers check it first, with a message.
        precondition(
            ClassHierarchy.isInstance(value, of: type),
            "Dirk internal error: a value stored under another type")
        insert(value, for: TypeKey(type))
    }

    /// The value stored under the key of `type`, as a `T`. Safe from any thread without a lock.
    ///
    /// Values stored with `insert(_:asInstanceOf:)` are instances of their key's type, so the cast
    /// holds.
    @inlinable @inline(__always)
    package func instance<T: AnyObject>(of type: T.Type) -> T? {
        value(for: TypeKey(type)).map { unsafeDowncast($0, to: T.self) }
    }
}
