import MallocInterposerSwift

/// Counts heap allocations (calls of `malloc`, `calloc`, `realloc`, `posix_memalign` and the
/// like, on every thread) made while a closure runs.
///
/// The counter is ordo-one's malloc-interposer, linked into this executable and into no other:
/// its `malloc` and `free` come before libc's in the dynamic linker's search order, so every
/// allocation of the process goes through it, counted or not. Counting is switched on only
/// around `count(_:)`.
enum AllocationCounter {
    /// Whether the interposer really sees this process's allocations; false, for example, when
    /// the platform resolves `malloc` to libc despite the link order.
    static let isAvailable: Bool = {
        let allocations = count { sinkProbe(makeProbe()) }
        return allocations >= 1
    }()

    /// The number of allocations made while `body` runs.
    static func count(_ body: () -> Void) -> Int {
        let before = MallocInterposerSwift.getStatistics().mallocCount
        MallocInterposerSwift.hook()
        body()
        MallocInterposerSwift.unhook()
        return MallocInterposerSwift.getStatistics().mallocCount - before
    }
}

private final class Probe {}

@inline(never)
private func makeProbe() -> Probe {
    Probe()
}

@inline(never)
private func sinkProbe(_ probe: Probe) {
    withExtendedLifetime(probe) {}
}
