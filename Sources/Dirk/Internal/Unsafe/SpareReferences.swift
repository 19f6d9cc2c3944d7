import CDirk

/// Strong references to a cell's ready object that the cell made in bulk, kept in one word beside
/// the cell's lock, and handed out one at a time without the lock: how a cached `single` is read
/// with one atomic operation, a compare-and-exchange of that word, instead of a lock and a retain.
///
/// The word holds zero, or the object's address together with the number of spare references it
/// owns, in bits that the address leaves at zero: bits 48 to 55 on 64-bit platforms, whose
/// addresses use at most 48 bits below the top byte that some keep for tags; the 4 low bits on
/// 32-bit ones, for an object aligned to 16 bytes. A read (`take()`) lowers the number by one with
/// a compare-and-exchange and owns the reference it took; it takes no lock and waits for nobody.
/// When none is left, a read under the cell's lock (`refill(with:)`) makes `batch` references with
/// one atomic change of the object's count (`dirk_retain_n`), keeps one and puts the others in the
/// word: one read in `batch` takes the lock.
///
/// **Why it is safe.** Each reference that the word's number counts exists, made by
/// `dirk_retain_n` before the number was stored, and leaves the word exactly once: to the one reader
/// whose compare-and-exchange lowered the number from a value that counted it, or back to the object
/// in `releaseAll(of:isShared:)`, which takes the word's whole content at once. Readers
/// (`dirk_take_counted`) change only a word whose number is not zero, and only by lowering the
/// number, which leaves the other bits as they are; everything else that writes the word
/// (`refill(with:)`, `releaseAll(of:isShared:)`) holds the cell's lock, or runs when nothing else
/// refers to the cell. Only an address whose number bits are zero is stored (`refill(with:)`
/// checks each object's; another is read under the lock with a retain of its own). While the
/// cell is ready with an object, the word holds zero or that object's address; the cell empties it
/// under its lock in the same critical section that takes the object out (`OnceCell.reset()`,
/// `OnceCell.retireUnlessBuilding()`), and its deinitializer gives back what is left. So a reader
/// that lowers a number takes a reference to the cell's current object, even if the word emptied
/// and filled again in between: the compare-and-exchange compares the address and the number
/// together. The object is alive throughout: the cell's own reference (its `StrongObjectStorage`)
/// holds it while the word owns any, and a reader's reference is its own. The refill's releasing
/// store, and the acquiring compare-and-exchange that takes a reference, order the retain before
/// every use of the references it made.
@usableFromInline package struct SpareReferences {
    /// The word, one of the cell's own, which lives as long as the cell.
    @usableFromInline let word: UnsafeMutablePointer<UInt>

    /// The word among `cellWords`, the `cellWordCount` words a cell keeps for it.
    @inlinable init(cellWords: UnsafeMutablePointer<UInt>) {
        let address = UInt(bitPattern: cellWords)
        let aligned = (address &+ 63) & ~UInt(63)
        self.word = UnsafeMutablePointer(bitPattern: aligned)!
    }

    /// Words a cell keeps for the word, which lies at the first 64-byte boundary among them: enough
    /// for the word to have a cache line of its own, which no other field of the cell or
    /// neighbouring object shares, so that readers on several threads contend on the word alone.
    @inlinable static var cellWordCount: Int { 128 / MemoryLayout<UInt>.size }

    #if _pointerBitWidth(_64)
        /// One spare in the word: bit 48, the lowest above an address's 48 bits.
        @inlinable static var unit: UInt { 1 &<< 48 }
        /// How many references a refill makes: one for the reader that refills, and the 255 that
        /// bits 48 to 55 count. 1/256 of a lock per read, and the object's count stays far from the
        /// runtime's inline limit.
        @usableFromInline package static let batch: UInt32 = 256
    #else
        /// One spare in the word: bit 0, the lowest of the 4 that an address aligned to 16 bytes
        /// leaves at zero (on Apple platforms, every object's; elsewhere, where `malloc` may align
        /// to 8 only, an object that is not is read under the lock).
        @inlinable static var unit: UInt { 1 }
        /// How many references a refill makes: one for the reader that refills, and the 15 the
        /// word can count.
        @usableFromInline package static let batch: UInt32 = 16
    #endif

    /// The bits of the word that count its references.
    @inlinable static var countBits: UInt { unit &* UInt(batch &- 1) }

    /// One reference to the cell's ready object, which the caller owns (`takeRetainedValue()`),
    /// taken without the lock; nil when the word holds none.
    @inlinable @inline(__always)
    func take() -> Unmanaged<AnyObject>? {
        // The word as it was when this read lowered its number: the number counted the reference
        // just taken, to the object at the address.
        let taken = dirk_take_counted(word, Self.countBits, Self.unit)
        guard let address = UnsafeRawPointer(bitPattern: taken & ~Self.countBits) else { return nil }
        return Unmanaged.fromOpaque(address)
    }

    /// One reference to `object`, the cell's ready object, which the caller owns: taken from the
    /// word, after making `batch` more if it holds none. Call it under the cell's lock.
    @usableFromInline @inline(never)
    func refill(with object: AnyObject) -> Unmanaged<AnyObject> {
        if let taken = take() { return taken }
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let held = dirk_load_relaxed(word)
        precondition(
            held == 0 || held == address,
            "Dirk internal error: a cell's spare references are not its object's")
        // An address that needs the number's bits is read with a retain of its own.
        guard address & Self.countBits == 0 else { return Unmanaged.passRetained(object) }
        // No reader changes a word whose number is zero, and every writer holds the lock.
        dirk_retain_n(Unmanaged.passUnretained(object).toOpaque(), Self.batch)
        dirk_store_release(word, address | Self.countBits)
        return Unmanaged.passUnretained(object)
    }

    /// Gives every reference the word owns back to `object`, the cell's ready object, which the
    /// caller holds beyond them, and empties the word. Call it under the cell's lock, where readers
    /// may still take references (`isShared`), or when nothing else refers to the cell.
    func releaseAll(of object: AnyObject, isShared: Bool) {
        guard dirk_load_relaxed(word) != 0 else { return }
        let taken: UInt
        if isShared {
            taken = dirk_exchange_relaxed(word, 0)
        } else {
            taken = dirk_load_relaxed(word)
            dirk_store_relaxed(word, 0)
        }
        precondition(
            taken & ~Self.countBits == UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()),
            "Dirk internal error: a cell's spare references are not its object's")
        let count = (taken & Self.countBits) / Self.unit
        if count != 0 { dirk_release_n(Unmanaged.passUnretained(object).toOpaque(), UInt32(count)) }
    }

    /// How many references the word owns now. A test hook.
    package var count: Int { Int((dirk_load_relaxed(word) & Self.countBits) / Self.unit) }

    /// What a read of a word holding `content` takes, as `take()` takes it: the word as it was
    /// before, or nil; and what the word holds after. Nothing is retained or released. A test hook.
    package static func read(ofWordHolding content: UInt) -> (taken: UInt?, left: UInt) {
        var word = content
        let taken = withUnsafeMutablePointer(to: &word) { dirk_take_counted($0, countBits, unit) }
        return (taken == 0 ? nil : taken, word)
    }

    /// A word holding `address` and `count` spares. A test hook.
    package static func word(address: UInt, count: Int) -> UInt {
        address | UInt(count) &* unit
    }
}
