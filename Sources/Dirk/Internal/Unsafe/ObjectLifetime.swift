import CDirk

/// Asks the Swift runtime whether an object has begun to deinitialize, and takes a strong reference
/// to it only if it has not: what a `weak` reference does when it loads, without a weak reference's
/// side table. These are the two entry points of the runtime that Dirk calls; the runtime exports
/// and documents both in its `HeapObject.h`.
///
/// **Why it is safe.** `retainIfAlive` must be given the address of a Swift object whose memory is
/// allocated: its callers pass a component's address, whose memory the component's storage keeps
/// allocated through an `unowned` reference for as long as the storage lives (an unowned reference
/// keeps an object's memory, though not the object). `swift_tryRetain` decides atomically against the
/// start of deinitialization, so a reference it returns is a real strong reference, balanced by the
/// caller's release.
@usableFromInline enum ObjectLifetime {
    /// A strong reference to the object at `address`, or nil if it has begun to deinitialize.
    @inlinable
    static func retainIfAlive<Object: AnyObject>(_ address: UInt, as type: Object.Type) -> Object? {
        swift_tryRetain(UnsafeMutableRawPointer(bitPattern: address)!).map {
            Unmanaged<Object>.fromOpaque($0).takeRetainedValue()
        }
    }

    /// Whether `object`, which the caller holds, has begun to deinitialize: true only inside its own
    /// `deinit`, or in code that its `deinit` calls.
    @inlinable static func isDeinitializing(_ object: AnyObject) -> Bool {
        swift_isDeallocating(Unmanaged.passUnretained(object).toOpaque())
    }
}
