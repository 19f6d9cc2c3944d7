// A copy of Dirk's Sources/Dirk/Internal/ReadGuard.swift (commit d4ce1d5), for `cachedread`,
// which must measure the algorithm without Dirk. The one change: the thread's address comes from
// `cachedread_thread_marker()` in CachedReadSupport, a copy of `dirk_thread_marker()`, because
// Dirk's C target is not a product. Keep it in step with Dirk's file.

import CachedReadSupport
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Lets lock-free readers of a component's cached instances finish before `reset()` or the
/// component's release lets those instances go: hazard pointers, one set per component.
///
/// A reader loads the published instance, claims a free hazard slot for it with one
/// compare-and-exchange, checks that the instance is still published, retains it and clears the
/// slot with a plain store. A writer, holding the component's lock, first unpublishes what it
/// drops, then waits while any slot still holds one of those instances, and only then releases
/// its own references. Either the reader's check comes after the unpublishing, and the reader
/// retries on the slow path, or the writer's scan comes after the claim, and the writer waits a
/// few nanoseconds for the retain.
///
/// Readers start at a slot chosen by their thread, so readers on different threads rarely touch
/// the same cache line. This is how Dirk returns cached singles without a lock and without weak
/// references, whose side tables would slow every retain and release of the user's instances.
@usableFromInline
final class ReadGuard: @unchecked Sendable {
    // Every slot is an atomic; the allocation is immutable.
    @usableFromInline let slots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>

    /// Hazard slots per component: enough that two threads seldom start at the same one.
    @usableFromInline static let count = 32
    /// Atomics between two slots, so that each sits on its own cache line.
    #if arch(arm64)
        @usableFromInline static let spacing = 128 / MemoryLayout<Atomic<UnsafeMutableRawPointer?>>.stride
    #else
        @usableFromInline static let spacing = 64 / MemoryLayout<Atomic<UnsafeMutableRawPointer?>>.stride
    #endif

    init() {
        let total = Self.count * Self.spacing
        slots = .allocate(capacity: total)
        for index in 0..<total {
            (slots + index).initialize(to: Atomic(nil))
        }
    }

    deinit {
        slots.deinitialize(count: Self.count * Self.spacing)
        slots.deallocate()
    }

    /// The object published in `published`, retained, read as a reader that writers wait for, or
    /// nil when nothing is published or every slot is busy (then the caller takes the slow path).
    ///
    /// `slots` is a guard's `slots`, which the caller keeps alive.
    @inlinable @inline(__always)
    static func read(
        _ published: borrowing Atomic<Unmanaged<AnyObject>?>,
        slots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    ) -> AnyObject? {
        let first = firstSlot()
        while let object = published.load(ordering: .sequentiallyConsistent) {
            let address = object.toOpaque()
            var offset = 0
            while offset < count {
                let slot = slots + ((first &+ offset) & (count &- 1)) &* spacing
                if slot.pointee.compareExchange(
                    expected: nil, desired: address, ordering: .sequentiallyConsistent
                ).exchanged {
                    guard published.load(ordering: .sequentiallyConsistent)?.toOpaque() == address
                    else {
                        slot.pointee.store(nil, ordering: .releasing)
                        break
                    }
                    // The retain must happen before the slot is cleared. The optimizer moves an
                    // ordinary retain past an atomic store, and out of a generic function it
                    // specializes into the caller, but not out of a call it cannot see into.
                    retainOpaquely(address)
                    slot.pointee.store(nil, ordering: .releasing)
                    return Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
                }
                offset &+= 1
            }
            if offset == count { return nil }
        }
        return nil
    }

    /// The calling thread's first slot, from an address that differs between threads and costs
    /// no load; within one thread any choice is correct.
    @inlinable @inline(__always)
    static func firstSlot() -> Int {
        let address = UInt(bitPattern: cachedread_thread_marker())
        return Int(truncatingIfNeeded: ((UInt64(address) >> 12) &* 0x9E37_79B9_7F4A_7C15) >> 59)
    }

    /// Waits until no reader still holds one of `objects` in a slot. Call it after unpublishing
    /// them, before releasing them.
    func waitUntilUnread(_ objects: [Any]) {
        let addresses = Set(
            objects.compactMap { object in
                type(of: object) is AnyObject.Type
                    ? Unmanaged.passUnretained(object as AnyObject).toOpaque() : nil
            })
        guard !addresses.isEmpty else { return }
        for index in 0..<Self.count {
            let slot = slots + index * Self.spacing
            while let held = slot.pointee.load(ordering: .sequentiallyConsistent), addresses.contains(held) {
                sched_yield()
            }
        }
    }
}

/// Retains the object at `address` in a call that the optimizer does not see into, so that the
/// retain cannot move past the store that clears a reader's hazard slot. It releases nothing, and
/// says so, so that a caller's optimizer may still drop a retain and release of the module around
/// a provider's fast path.
@usableFromInline @inline(never) @_effects(releasenone)
func retainOpaquely(_ address: UnsafeMutableRawPointer) {
    _ = Unmanaged<AnyObject>.fromOpaque(address).retain()
}
