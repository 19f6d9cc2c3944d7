import ProcessorAffinity
import Synchronization

/// Puts each thread of a parallel run on a processor of its own, so that the threads of a
/// contended scenario really run at the same time.
///
/// Unpinned, the scheduler may run both threads of `contended` on one processor, one after the
/// other: the run then measures no contention at all, and whether it does changes from one round
/// to the next, and between the implementations of one round. Pinned, every round of every
/// implementation measures the same thing: two processors touching the same memory.
///
/// Linux only, and only when the process may use at least as many processors as the run has
/// threads; elsewhere the threads run where the scheduler puts them, and the report says so.
enum ProcessorPinning {
    /// The processors this process may run on, lowest first; empty where the platform does not
    /// tell.
    static let allowedProcessors: [Int] = {
        var processors = [Int32](repeating: 0, count: 1024)
        let count = affinity_allowed_processors(&processors, Int32(processors.count))
        return processors.prefix(Int(count)).map(Int.init)
    }()

    /// Whether a run of `threads` threads gets a processor per thread.
    static func pinsThreads(_ threads: Int) -> Bool {
        allowedProcessors.count >= threads
    }

    /// How many threads could not be pinned although `pinsThreads` said they would be: the report
    /// says so, since their runs measure less contention.
    static let failures = Atomic(0)

    /// Pins the calling thread, the `index`th of a run of `threads`, to a processor of its own, if
    /// `pinsThreads(threads)`; counts a failure in `failures`.
    static func pinCurrentThread(index: Int, of threads: Int) {
        guard pinsThreads(threads) else { return }
        if affinity_pin_current_thread(Int32(allowedProcessors[index])) != 0 {
            failures.add(1, ordering: .relaxed)
        }
    }
}
