/// A module's reference to its component: it keeps the component's memory allocated but not the
/// component alive, and turns into a strong reference only while the component is alive.
///
/// **Why it is safe.** The `unowned` reference keeps the object's memory allocated for as long as
/// this value exists, so `address` always points to allocated memory, which is what
/// `ObjectLifetime.retainIfAlive` needs. `heldObject` makes a reference from the address without
/// retaining it; callers use it only while a strong reference that they hold keeps the object
/// alive (the resolution's `hold`, or the reference `retainIfAlive` returned).
@usableFromInline struct UnownedReference<Object: AnyObject>: @unchecked Sendable {
    // Immutable. `unowned` references are thread-safe to copy.
    @usableFromInline unowned let memoryKeeper: Object
    @usableFromInline let address: UnsafeMutableRawPointer

    @inlinable init(_ object: Object) {
        memoryKeeper = object
        address = Unmanaged.passUnretained(object).toOpaque()
    }

    /// A strong reference to the object, or nil if the object has begun to deinitialize.
    @inlinable func strongIfAlive() -> Object? {
        ObjectLifetime.retainIfAlive(address, as: Object.self)?.takeRetainedValue()
    }

    /// The object, which a strong reference the caller holds keeps alive.
    @inlinable
    var heldObject: Object {
        Unmanaged<Object>.fromOpaque(address).takeUnretainedValue()
    }

    /// Runs `body` with the object, lent without a reference count of its own; a strong reference
    /// the caller holds (the resolution's `hold`) keeps the object alive meanwhile.
    @inlinable
    func withHeldObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try Unmanaged<Object>.fromOpaque(address)._withUnsafeGuaranteedRef(body)
    }

    /// The object's identity, compared only.
    @inlinable var identity: UInt { UInt(bitPattern: address) }
}
