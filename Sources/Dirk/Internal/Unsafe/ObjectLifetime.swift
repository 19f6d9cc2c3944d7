import CDirk

/// Asks the Swift runtime whether an object has begun to deinitialize, and takes a strong
/// reference to it only if it has not: what a `weak` reference does when it loads, without a
/// weak reference's side table.
///
/// **Why it is safe.** `address` must be the address of a Swift object whose memory is allocated:
/// every caller passes the address of a component that an `unowned` reference held by the caller's
/// module keeps allocated (an unowned reference keeps an object's memory, though not the object,
/// until it goes). `swift_tryRetain` decides atomically against the start of deinitialization, so a
/// reference it returns is a real strong reference, balanced by the caller's release.
/// `isDeinitializing` reads the flag that `swift_isDeallocating` reads, from the count of an object
/// the caller holds, where it lies in the object, and otherwise asks the runtime (see
/// `dirk_is_deinitializing` in CDirk.h).
@usableFromInline enum ObjectLifetime {
    /// A strong reference to the object at `address`, or nil if it has begun to deinitialize.
    @inlinable
    static func retainIfAlive<Object: AnyObject>(_ address: UnsafeMutableRawPointer, as type: Object.Type)
        -> Unmanaged<Object>?
    {
        guard let retained = swift_tryRetain(address) else { return nil }
        return Unmanaged<Object>.fromOpaque(retained)
    }

    /// Whether `object` has begun to deinitialize: true only inside its own `deinit`, or in code
    /// that its `deinit` calls, since no other code can still hold a strong reference to it.
    ///
    /// `object` must be a native Swift object (a component), which the caller holds.
    @inlinable
    static func isDeinitializing(_ object: AnyObject) -> Bool {
        dirk_is_deinitializing(Unmanaged.passUnretained(object).toOpaque())
    }

    /// What `isDeinitializing(_:)` answers for `object`, what the runtime's own entry point
    /// answers, and the count word that the first reads where it can. A test hook: the two answers
    /// must agree.
    static func answers(for object: AnyObject) -> (inline: Bool, runtime: Bool, countWord: UInt64) {
        let address = Unmanaged.passUnretained(object).toOpaque()
        return (dirk_is_deinitializing(address), swift_isDeallocating(address), dirk_count_word(address))
    }
}
