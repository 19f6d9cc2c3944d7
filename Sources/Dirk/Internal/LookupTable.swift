import Synchronization

/// An append-only hash table whose reads take no lock and touch no reference count.
///
/// Entries are never removed or replaced: a provider's slot, a component's module or a parent
/// stays for the owner's lifetime, so a reader that found an entry may keep using it for as long
/// as it holds the owner. Readers load the current storage with acquiring ordering and probe it;
/// a writer, holding the owner's lock, fills the key first and then publishes the value with
/// releasing ordering, so a reader that sees a value also sees its key. When the load factor
/// passes one half the writer copies the entries into a storage twice the size, which keeps the
/// outgrown one alive, and publishes it: a reader may still be probing the old one, and the chain
/// costs less memory than the current storage.
///
/// The first entry lives in the table itself, so a table of one entry (a child component's only
/// module, a module's only cached provider) allocates nothing; later entries go to the storage.
/// A lookup of the first entry costs two loads and a comparison; of any other, one more load, one
/// hash and, on average, about one probe.
@usableFromInline
struct LookupTable: ~Copyable {
    @usableFromInline typealias Key = LookupKey
    @usableFromInline typealias Value = AnyObject

    // Read without a lock; written only while holding the owner's lock. The first entry's key is
    // written before its value is published, and never changes after.
    @usableFromInline
    let firstValue = Atomic<Unmanaged<Value>?>(nil)
    @usableFromInline
    let firstType = Atomic<UInt>(0)
    @usableFromInline
    let firstPosition = Atomic<UInt64>(0)
    @usableFromInline
    let firstFile = Atomic<UInt>(0)
    @usableFromInline
    let firstFileLength = Atomic<Int>(0)
    /// The entries after the first.
    @usableFromInline
    let current = Atomic<Unmanaged<Storage>?>(nil)

    init() {}

    deinit {
        firstValue.load(ordering: .acquiring)?.release()
        current.load(ordering: .acquiring)?.release()
    }

    /// The value stored under `key`, unretained, or nil. Safe from any thread without a lock.
    @inlinable @inline(__always)
    func value<Found: AnyObject>(for key: Key, as type: Found.Type) -> Unmanaged<Found>? {
        // The first entry is filled before any other, so an empty one means an empty table.
        guard let first = firstValue.load(ordering: .acquiring) else { return nil }
        if firstKey == key { return Unmanaged.fromOpaque(first.toOpaque()) }
        guard let storage = current.load(ordering: .acquiring),
            let value = storage._withUnsafeGuaranteedRef({ $0.find(key) })
        else { return nil }
        return Unmanaged.fromOpaque(value.toOpaque())
    }

    /// The first entry's value, if it is stored under the key of `type`, in a table that holds only
    /// keys of types (a component's modules or ancestors), where the first entry is told by its
    /// type alone; nil otherwise. Two loads and a comparison, safe from any thread without a lock.
    @inlinable @inline(__always)
    func firstValue<Found: AnyObject>(ifType type: Any.Type, as found: Found.Type) -> Unmanaged<Found>? {
        guard let first = firstValue.load(ordering: .acquiring),
            firstType.load(ordering: .relaxed) == UInt(bitPattern: ObjectIdentifier(type))
        else { return nil }
        return Unmanaged.fromOpaque(first.toOpaque())
    }

    /// The first entry's key. Read it after loading the first value.
    @inlinable
    var firstKey: Key {
        LookupKey(
            type: unsafeBitCast(firstType.load(ordering: .relaxed), to: ObjectIdentifier.self),
            position: firstPosition.load(ordering: .relaxed),
            file: UnsafeRawPointer(bitPattern: firstFile.load(ordering: .relaxed)),
            fileLength: firstFileLength.load(ordering: .relaxed))
    }

    /// Calls `body` with every value, in table order, without allocating. Call it while holding the
    /// owner's lock.
    func forEachValue(_ body: (Value) -> Void) {
        guard let first = firstValue.load(ordering: .acquiring) else { return }
        body(first.takeUnretainedValue())
        current.load(ordering: .acquiring)?._withUnsafeGuaranteedRef { $0.forEachValue(body) }
    }

    /// Stores `value` under `key`, which must not be present. Call it while holding the owner's
    /// lock.
    func insert(_ value: Value, for key: Key) {
        if firstValue.load(ordering: .relaxed) == nil {
            firstType.store(UInt(bitPattern: key.type), ordering: .relaxed)
            firstPosition.store(key.position, ordering: .relaxed)
            firstFile.store(UInt(bitPattern: key.file), ordering: .relaxed)
            firstFileLength.store(key.fileLength, ordering: .relaxed)
            firstValue.store(.passRetained(value), ordering: .releasing)
            return
        }
        let storage: Storage
        if let existing = current.load(ordering: .acquiring)?.takeUnretainedValue() {
            if (existing.count + 1) * 2 > existing.slotCount {
                storage = Storage.make(capacity: existing.slotCount * 2, succeeding: existing)
                // The new storage takes over the table's reference to the old one.
                current.store(.passRetained(storage), ordering: .releasing)
                Unmanaged.passUnretained(existing).release()
            } else {
                storage = existing
            }
        } else {
            storage = Storage.make(capacity: 8, succeeding: nil)
            current.store(.passRetained(storage), ordering: .releasing)
        }
        storage.insert(value, for: key, sequence: storage.count)
    }

    /// What a `Storage` keeps besides its published values.
    @usableFromInline
    struct Header {
        @usableFromInline let capacity: Int
        /// The published values, in the storage's own allocation.
        @usableFromInline let values: UnsafeMutablePointer<Atomic<Unmanaged<Value>?>>
        /// The key and insertion order of each value, written before the value is published; in
        /// the same allocation, after the values.
        @usableFromInline let keys: UnsafeMutablePointer<(key: Key?, sequence: Int)>
        var count = 0
        /// The outgrown storage, kept alive for readers that still probe it.
        let predecessor: Storage?
    }

    /// One power-of-two sized array of published values, probed linearly, and their keys, in a
    /// single allocation.
    @usableFromInline
    final class Storage: ManagedBuffer<Header, UInt64> {
        static func make(capacity: Int, succeeding predecessor: Storage?) -> Storage {
            let valueBytes = capacity * MemoryLayout<Atomic<Unmanaged<Value>?>>.stride
            let keyBytes = capacity * MemoryLayout<(key: Key?, sequence: Int)>.stride
            let words = (valueBytes + keyBytes + 7) / 8
            let buffer = create(minimumCapacity: words) { buffer in
                buffer.withUnsafeMutablePointerToElements { words in
                    let raw = UnsafeMutableRawPointer(words)
                    let values = raw.bindMemory(to: Atomic<Unmanaged<Value>?>.self, capacity: capacity)
                    for index in 0..<capacity {
                        (values + index).initialize(to: Atomic(nil))
                    }
                    let keys = (raw + valueBytes).bindMemory(
                        to: (key: Key?, sequence: Int).self, capacity: capacity)
                    keys.initialize(repeating: (nil, 0), count: capacity)
                    return Header(capacity: capacity, values: values, keys: keys, predecessor: predecessor)
                }
            }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            if let predecessor {
                for entry in predecessor.entriesInInsertionOrder() {
                    storage.insert(entry.value, for: entry.key, sequence: entry.sequence)
                }
            }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToHeader { header in
                let capacity = header.pointee.capacity
                let values = header.pointee.values
                // Every storage holds its own reference to each of its values.
                for index in 0..<capacity {
                    values[index].load(ordering: .relaxed)?.release()
                }
                values.deinitialize(count: capacity)
                header.pointee.keys.deinitialize(count: capacity)
            }
        }

        var slotCount: Int { header.capacity }
        var count: Int { header.count }

        @inlinable @inline(__always)
        func find(_ key: Key) -> Unmanaged<Value>? {
            withUnsafeMutablePointerToHeader { header in
                // Only immutable fields of the header are read: writers change `count` meanwhile.
                let mask = header.pointer(to: \.capacity)!.pointee &- 1
                let values = header.pointer(to: \.values)!.pointee
                let keys = header.pointer(to: \.keys)!.pointee
                var index = key.mixedHash & mask
                while let value = values[index].load(ordering: .acquiring) {
                    if keys[index].key.unsafelyUnwrapped == key { return value }
                    index = (index &+ 1) & mask
                }
                return nil
            }
        }

        /// Publishes `value`, retaining it: each storage holds its own reference to every value.
        func insert(_ value: Value, for key: Key, sequence: Int) {
            withUnsafeMutablePointerToHeader { header in
                let mask = header.pointer(to: \.capacity)!.pointee &- 1
                let values = header.pointer(to: \.values)!.pointee
                let keys = header.pointer(to: \.keys)!.pointee
                var index = key.mixedHash & mask
                while values[index].load(ordering: .relaxed) != nil {
                    index = (index &+ 1) & mask
                }
                keys[index] = (key, sequence)
                values[index].store(.passRetained(value), ordering: .releasing)
                header.pointer(to: \.count)!.pointee += 1
            }
        }

        func entriesInInsertionOrder() -> [(key: Key, value: Value, sequence: Int)] {
            withUnsafeMutablePointerToHeader { header in
                let values = header.pointer(to: \.values)!.pointee
                let keys = header.pointer(to: \.keys)!.pointee
                return (0..<header.pointer(to: \.capacity)!.pointee).compactMap { index in
                    guard let value = values[index].load(ordering: .acquiring),
                        let key = keys[index].key
                    else { return nil }
                    return (key, value.takeUnretainedValue(), keys[index].sequence)
                }
                .sorted { $0.sequence < $1.sequence }
            }
        }

        /// Calls `body` with every value, in table order, without allocating.
        func forEachValue(_ body: (Value) -> Void) {
            withUnsafeMutablePointerToHeader { header in
                let values = header.pointer(to: \.values)!.pointee
                for index in 0..<header.pointer(to: \.capacity)!.pointee {
                    if let value = values[index].load(ordering: .acquiring) {
                        body(value.takeUnretainedValue())
                    }
                }
            }
        }
    }
}
