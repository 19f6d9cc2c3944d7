import CDirk

/// Strong references to one object that their owner made in bulk, to hand out one at a time: how
/// a cached `single` is read with one atomic operation, the one that takes its cell's lock, instead
/// of two (that one and a retain of the instance).
///
/// A cell's read takes one of its spares under its lock and hands it to the caller, who owns it
/// from then on and releases it as it would any reference. When none is left, the read first makes
/// `batch` more, with one atomic change of the object's reference count (`dirk_retain_n`).
///
/// **Why it is safe.** `count` references to the object exist that only this value owns: each was
/// made by `take(of:)` before it was counted, and each leaves the count exactly once, either to a
/// caller of `take(of:)` or back to the object in `releaseAll(of:)`. That holds because the value
/// is a plain count kept in one place, which its owner changes only under the lock that guards
/// that place, and which it gives back only once it has taken the place's value out from under
/// the lock, or when nothing else refers to the place any more. The owner is
/// `StrongObjectStorage`, in a cell: its spares are given back by `OnceCell.reset()`,
/// `OnceCell.retireUnlessBuilding()` and `StrongObjectCell.deinit`, the only ways a cell gives up
/// its value, and `releaseAll(of:)` sets the count to zero, so a copy that was taken out cannot give
/// them back twice. Every call passes the object that the owner keeps a reference to of its own,
/// beside the spares, so the object is alive throughout and never reaches zero here.
@usableFromInline package struct SpareReferences {
    /// How many references `take(of:)` makes at once when none is left: 1/256 of an atomic
    /// operation per read, and the object's count stays far from the runtime's inline limit.
    @usableFromInline package static let batch: UInt32 = 256

    /// The references to the object that this value owns.
    @usableFromInline private(set) var count: UInt32 = 0

    @inlinable init() {}

    /// One reference to `object`, which the caller owns (`takeRetainedValue()`): taken from the
    /// spares, made first when none is left. Call it under the owner's lock.
    @inlinable mutating func take(of object: AnyObject) -> Unmanaged<AnyObject> {
        if count == 0 { count = Self.makeBatch(of: object) }
        count &-= 1
        return Unmanaged.passUnretained(object)
    }

    /// Makes `batch` references to `object`, which the caller holds; returns how many.
    @usableFromInline @inline(never) static func makeBatch(of object: AnyObject) -> UInt32 {
        dirk_retain_n(Unmanaged.passUnretained(object).toOpaque(), batch)
        return batch
    }

    /// Gives every spare back to `object`, which the caller holds beyond them, and leaves none.
    mutating func releaseAll(of object: AnyObject) {
        guard count != 0 else { return }
        dirk_release_n(Unmanaged.passUnretained(object).toOpaque(), count)
        count = 0
    }
}
