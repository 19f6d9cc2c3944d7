/// A cached reference behind a lock of its own: a reader takes the lock, copies the reference
/// (retaining the object) and releases the lock. The alternative to hazard pointers that
/// `cachedread` weighs.
///
/// `@unchecked Sendable`: `object` is read and written only while holding `lock`.
public final class SpinLockedCell: @unchecked Sendable {
    private let lock = SpinLock()
    private var object: CachedObject

    public init(_ object: CachedObject) {
        self.object = object
    }

    /// The cached object, retained. Not inlined (see `CachedObject`).
    @inline(never)
    public func read() -> CachedObject {
        let address = lock.withLock {
            let address = Unmanaged.passUnretained(object).toOpaque()
            // The retain must happen before the unlock, or a writer could release the object
            // first. With a plain copy of `object` here, the optimizer moves the retain past the
            // releasing store that unlocks (seen in this function's machine code), so the retain
            // is a call it cannot see into, as in `ReadGuard.read`.
            retainOpaquely(address)
            return address
        }
        return Unmanaged<CachedObject>.fromOpaque(address).takeRetainedValue()
    }
}
