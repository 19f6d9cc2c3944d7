/// The address of a word that an object keeps as its first stored property, for a class that reads
/// and writes the word atomically (through CDirk's atomic functions) without an allocation of its
/// own: Swift has no atomic stored property before the `Synchronization` module, which Dirk's
/// deployment targets lack.
///
/// **Why it is safe.** The class must be a root class (no superclass) whose first stored property
/// is a `UInt`, which it initializes to zero in its initializer and never reads or writes through
/// Swift afterwards. Swift lays a class's stored properties out in the order it declares them,
/// after the object's header, so that property lies where the standard library's
/// `_getUnsafePointerToStoredProperties` points: the standard library's own bridging buffers and
/// swift-atomics' `ManagedAtomic` keep their words this way. The address is valid for as long as
/// the object's memory is, and callers use it only while they hold the object. A test
/// (`ModuleSlotsTests.slotsOnFirstNeed`) checks the layout against the property itself.
@usableFromInline enum FirstStoredWord {
    /// The word that `object`, an instance of a class as described above, keeps first.
    @inlinable @inline(__always)
    static func of(_ object: AnyObject) -> UnsafeMutablePointer<UInt> {
        _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: UInt.self)
    }
}
