import CDirk

/// A strong reference in a word that its owner keeps (see `FirstStoredWord`), set at most once and
/// read without a lock: an object made on first need and kept for the owner's lifetime.
///
/// **Why it is safe.** The word is zero until `publish(_:)` stores a retained reference, with a
/// releasing compare-and-exchange from zero, which the acquiring loads pair with, so a reader sees
/// the object whole, and of two publishers only one succeeds; the reference then stays until the
/// owner's `deinit` calls `release()`.
/// A reader holds the owner, so the owner's reference keeps the object alive while the reader uses
/// it, without a reference count of the reader's own.
@usableFromInline struct PublishedReference<Object: AnyObject> {
    @usableFromInline let word: UnsafeMutablePointer<UInt>

    /// The reference in `word`, a word that its owner set to zero before anyone could read it.
    @inlinable init(word: UnsafeMutablePointer<UInt>) {
        self.word = word
    }

    /// The object, if published.
    @inlinable var object: Object? {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(word)) else { return nil }
        return Unmanaged<Object>.fromOpaque(address).takeUnretainedValue()
    }

    /// What `body` returns for the object, lent without a reference count of its own; nil if the
    /// object is not published.
    @inlinable @inline(__always)
    func withObject<Result>(_ body: (Object) -> Result?) -> Result? {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(word)) else { return nil }
        return Unmanaged<Object>.fromOpaque(address)._withUnsafeGuaranteedRef(body)
    }

    /// Whether the object is published.
    @inlinable var isPublished: Bool { dirk_load_acquire(word) != 0 }

    /// What `body` returns for the object, which is published, lent without a reference count of
    /// its own.
    @inlinable @inline(__always)
    func withPublishedObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(word)) else {
            preconditionFailure("Dirk internal error: an object used before it was published")
        }
        return try Unmanaged<Object>.fromOpaque(address)._withUnsafeGuaranteedRef(body)
    }

    /// Publishes `object`, unless an object was published already; returns whether it did, and
    /// then the word owns one reference to `object`.
    func publish(_ object: Object) -> Bool {
        let retained = Unmanaged.passRetained(object)
        if dirk_store_release_if_zero(word, UInt(bitPattern: retained.toOpaque())) { return true }
        retained.release()
        return false
    }

    func release() {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(word)) else { return }
        Unmanaged<Object>.fromOpaque(address).release()
    }
}
