import Synchronization

/// A cached reference read as Dirk once read a cached `single`: published in an atomic and read
/// with the hazard pointers of a `ReadGuard`, with no lock.
///
/// The cell keeps its guard's slots, so that a read loads no other object. Nothing here writes after `init`; a writer would unpublish, call
/// `ReadGuard.waitUntilUnread(_:)`, then release.
///
/// `@unchecked Sendable`: `published` and the slots are atomics; everything else is immutable.
public final class HazardPointerCell: @unchecked Sendable {
    private let readers = ReadGuard()
    private let readerSlots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    private let published: Atomic<Unmanaged<AnyObject>?>

    public init(_ object: CachedObject) {
        readerSlots = readers.slots
        published = Atomic(.passRetained(object))
    }

    deinit {
        published.load(ordering: .acquiring)?.release()
    }

    /// The cached object, retained. Not inlined (see `CachedObject`).
    @inline(never)
    public func read() -> CachedObject {
        guard let object = ReadGuard.read(published, slots: readerSlots) else {
            preconditionFailure("cachedread: every hazard slot is busy or nothing is published")
        }
        return unsafeDowncast(object, to: CachedObject.self)
    }
}
