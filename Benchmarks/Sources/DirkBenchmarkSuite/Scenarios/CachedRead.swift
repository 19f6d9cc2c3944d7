import CachedRead

/// `cachedread` and `cachedread_contended`: reading a cached object reference, the step behind
/// every cache hit of a DI library, guarded by each of the two mechanisms Dirk could use. No Dirk
/// code runs: the cells are in the module `CachedRead`.
///
/// - **hazard pointers**: `HazardPointerCell`, with a copy of the algorithm by which Dirk reads a
///   cached `single` (`ReadGuard`): one compare-and-exchange to claim a slot, a check that the
///   object is still published, a retain in a call the optimizer cannot see into, a store to
///   clear the slot.
/// - **spin lock**: `SpinLockedCell`, a strong reference behind a test-and-test-and-set spin lock
///   of its own: a load and a compare-and-exchange to lock, the retain (in the same opaque call,
///   so that it stays before the unlock), a store to unlock.
///
/// The hand-written baseline reads a `let` (`LetCell`), which needs no guard. Every read is a
/// call that is not inlined and returns the object retained; the caller releases it.
/// `cachedread` reads on one thread; `cachedread_contended` reads the same cell on two threads at
/// once, timed as `contended` is.
enum CachedReadScenario {
    static var scenario: Scenario {
        Scenario(
            name: "cachedread",
            handwritten: {
                let cell = LetCell(CachedObject())
                _ = cell.read()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            },
            hazardPointers: {
                let cell = HazardPointerCell(CachedObject())
                _ = cell.read()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            },
            spinLock: {
                let cell = SpinLockedCell(CachedObject())
                _ = cell.read()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            })
    }

    static var contendedScenario: Scenario {
        Scenario(
            name: "cachedread_contended",
            handwritten: {
                let cell = LetCell(CachedObject())
                _ = cell.read()
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            },
            hazardPointers: {
                let cell = HazardPointerCell(CachedObject())
                _ = cell.read()
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            },
            spinLock: {
                let cell = SpinLockedCell(CachedObject())
                _ = cell.read()
                return .parallel(threads: 2) { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: cell.read()) }
                    return sink
                }
            })
    }
}
