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
/// `isDeinitializing` asks the runtime about an object the caller holds.
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
    @inlinable
    static func isDeinitializing(_ object: AnyObject) -> Bool {
        swift_isDeallocating(Unmanaged.passUnretained(object).toOpaque())
    }
}
