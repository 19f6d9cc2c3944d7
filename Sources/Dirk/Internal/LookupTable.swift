import Synchronization

/// A key that a `LookupTable` can hash without allocating.
protocol LookupKey: Equatable {
    /// A well-mixed hash of the key; the table uses its low bits.
    var mixedHash: Int { get }
}

/// An append-only hash table whose reads take no lock.
///
/// Entries are never removed or replaced: a provider's slot, a component's module or a parent
/// stays for the owner's lifetime, so a reader that found an entry may keep using it. Readers
/// load the current storage with acquiring ordering and probe it; a writer, holding the owner's
/// lock, fills the key first and then publishes the value with releasing ordering, so a reader
/// that sees a value also sees its key. When the load factor passes one half the writer copies
/// the entries into a storage twice the size and publishes that; outgrown storages are kept
/// until the table is released, since a reader may still be probing one (their total size is
/// less than the current storage's).
///
/// Lookups cost one hash, one acquiring load and, on average, about one probe.
final class LookupTable<Key: LookupKey, Value: AnyObject>: @unchecked Sendable {
    // `current` is read without a lock; every other field is guarded by the owner's lock.
    private let current: Atomic<Unmanaged<Storage>>
    private var outgrown: [Storage] = []
    private var count = 0

    init(capacity: Int = 8) {
        current = Atomic(.passRetained(Storage(capacity: capacity)))
    }

    deinit {
        let storage = current.load(ordering: .acquiring)
        storage.takeUnretainedValue().releaseValues()
        storage.release()
    }

    /// The value stored under `key`, or nil. Safe from any thread without a lock.
    @inline(__always)
    func value(for key: Key) -> Value? {
        current.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.find(key) }
    }

    /// Every value, in table order. Call it while holding the owner's lock.
    func allValues() -> [Value] {
        current.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.allValues() }
    }

    /// Stores `value` under `key`, which must not be present. Call it while holding the owner's lock.
    func insert(_ value: Value, for key: Key) {
        var storage = current.load(ordering: .acquiring).takeUnretainedValue()
        if (count + 1) * 2 > storage.capacity {
            let larger = Storage(capacity: storage.capacity * 2)
            storage.moveValues(into: larger)
            outgrown.append(storage)
            current.store(.passRetained(larger), ordering: .releasing)
            // The table's own reference moves to `outgrown`, which keeps it alive.
            Unmanaged.passUnretained(storage).release()
            storage = larger
        }
        storage.insert(value, for: key)
        count += 1
    }

    /// One power-of-two sized array of keys and published values, probed linearly.
    final class Storage {
        let capacity: Int
        private let keys: UnsafeMutablePointer<Key?>
        private let values: UnsafeMutablePointer<Atomic<Unmanaged<Value>?>>
        private var ownsValues = true

        init(capacity: Int) {
            self.capacity = capacity
            keys = .allocate(capacity: capacity)
            keys.initialize(repeating: nil, count: capacity)
            values = .allocate(capacity: capacity)
            for index in 0..<capacity {
                (values + index).initialize(to: Atomic(nil))
            }
        }

        deinit {
            keys.deinitialize(count: capacity)
            keys.deallocate()
            values.deinitialize(count: capacity)
            values.deallocate()
        }

        @inline(__always)
        func find(_ key: Key) -> Value? {
            let mask = capacity &- 1
            var index = key.mixedHash & mask
            while let value = values[index].load(ordering: .acquiring) {
                if keys[index].unsafelyUnwrapped == key {
                    return value.takeUnretainedValue()
                }
                index = (index &+ 1) & mask
            }
            return nil
        }

        func insert(_ value: Value, for key: Key) {
            let mask = capacity &- 1
            var index = key.mixedHash & mask
            while values[index].load(ordering: .relaxed) != nil {
                index = (index &+ 1) & mask
            }
            keys[index] = key
            values[index].store(.passRetained(value), ordering: .releasing)
        }

        func allValues() -> [Value] {
            (0..<capacity).compactMap { values[$0].load(ordering: .acquiring)?.takeUnretainedValue() }
        }

        /// Copies every entry into `larger`, which takes over the references to the values.
        func moveValues(into larger: Storage) {
            for index in 0..<capacity {
                if let value = values[index].load(ordering: .relaxed), let key = keys[index] {
                    larger.insert(value.takeUnretainedValue(), for: key)
                    value.release()
                }
            }
            ownsValues = false
        }

        func releaseValues() {
            guard ownsValues else { return }
            for index in 0..<capacity {
                values[index].load(ordering: .relaxed)?.release()
            }
            ownsValues = false
        }
    }
}

/// A metatype as a lookup key: the type of a module or of a parent component.
struct TypeKey: LookupKey {
    let type: ObjectIdentifier

    init(_ type: Any.Type) {
        self.type = ObjectIdentifier(type)
    }

    var mixedHash: Int { mix(type.hashValueWithoutSeed) }
}

/// Folds the high bits of `word` into the low ones, which the table uses.
@inline(__always)
func mix(_ word: UInt) -> Int {
    var bits = word &* 0x9E37_79B9_7F4A_7C15
    bits ^= bits >> 29
    return Int(bitPattern: bits)
}

extension ObjectIdentifier {
    /// The identifier's address, for hashing without Hasher's per-process seed.
    @inline(__always)
    var hashValueWithoutSeed: UInt { UInt(bitPattern: self) }
}
