import CDirk

/// A flag in a word that its owner allocated, set once and never cleared, read and written with
/// sequentially consistent ordering: of two threads that each set one flag and then read the
/// other's, at least one sees the other's set.
struct AtomicFlag {
    /// The owner's word, which the owner keeps at a fixed address and sets to zero before anyone
    /// can read it.
    let word: UnsafeMutablePointer<UInt>

    /// Sets the flag.
    func set() {
        dirk_store_seq_cst(word, 1)
    }

    /// Whether the flag is set.
    var isSet: Bool {
        dirk_load_seq_cst(word) != 0
    }
}
