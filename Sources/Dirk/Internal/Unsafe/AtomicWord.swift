import CDirk

/// One machine word that its owner keeps at a fixed address (a `Locked` box's extra words), read and
/// written only through CDirk's C11 atomics: what Swift cannot declare without the `Synchronization`
/// module.
///
/// **Why it is safe.** The owner zeroes the word before anyone can reach it and keeps it allocated
/// for as long as anyone holds the owner; every access is atomic, so concurrent ones never race.
@usableFromInline struct AtomicWord {
    @usableFromInline let pointer: UnsafeMutablePointer<UInt>

    @inlinable init(_ pointer: UnsafeMutablePointer<UInt>) { self.pointer = pointer }

    /// The value, with no ordering: for counters whose readers take a lock to act on them.
    @inlinable var relaxed: UInt { dirk_load_relaxed(pointer) }

    /// The value, ordered after the release that wrote it.
    @inlinable var acquired: UInt { dirk_load_acquire(pointer) }

    /// Stores `value`, ordered after the writes before it.
    func release(_ value: UInt) { dirk_store_release(pointer, value) }

    /// Adds `delta`, which may be negative, and returns the previous value.
    @discardableResult func add(_ delta: Int) -> UInt { dirk_fetch_add(pointer, UInt(bitPattern: delta)) }

    /// Sets `bits` and returns the previous value.
    @discardableResult func set(_ bits: UInt) -> UInt { dirk_fetch_or(pointer, bits) }
}
