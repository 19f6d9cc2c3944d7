import CDirk

/// A flag in a word that its owner allocated, set once and never cleared, read with sequentially
/// consistent ordering and written, by `set()`, with the same: of two threads that each set one
/// flag and then read the other's, at least one sees the other's set.
struct AtomicFlag {
    /// The owner's word, which the owner keeps at a fixed address and sets to zero before anyone
    /// can read it.
    let word: UnsafeMutablePointer<UInt>

    /// Sets the flag, unless it is set already.
    ///
    /// A flag that many threads set (a parent's, once by each child registered under it) is
    /// written once, so that those threads do not fight for its cache line. Skipping the write
    /// keeps the guarantee: a sequentially consistent read that finds the flag set comes after the
    /// write that set it, so a thread that reads this thread's other flag afterwards is ordered as
    /// if this thread had written.
    func set() {
        if dirk_load_seq_cst(word) == 0 { dirk_store_seq_cst(word, 1) }
    }

    /// Whether the flag is set.
    var isSet: Bool {
        dirk_load_seq_cst(word) != 0
    }
}
