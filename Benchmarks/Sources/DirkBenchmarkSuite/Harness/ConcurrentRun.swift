import Foundation
import Synchronization

/// Runs one loop on several new threads at once and measures the wall time of the whole run.
///
/// The threads are created and started first, each on a processor of its own where the platform
/// allows (`ProcessorPinning`), and spin until every one of them is ready; the
/// clock starts when the harness releases them all together and stops when the last one
/// finishes its loop. The threads exit only after the measured part is over, so neither their
/// creation nor their exit is timed or counted.
enum ConcurrentRun {
    /// Runs `loop(count / threads)` on each of `threads` threads.
    ///
    /// - Parameters:
    ///   - window: Called on the calling thread with the part of the run that is measured (the
    ///     release of the threads and the wait for their loops), for example to count its
    ///     allocations.
    /// - Returns: The nanoseconds from the release of the threads to the end of the slowest loop,
    ///   and the sum of the loops' results.
    static func run(
        threads: Int, count: Int, window: (() -> Void) -> Void = { $0() },
        _ loop: @escaping @Sendable (Int) -> UInt
    ) -> (nanoseconds: Double, checksum: UInt) {
        let line = StartLine(threads: threads)
        let finished = DispatchSemaphore(value: 0)
        let exit = DispatchSemaphore(value: 0)
        let share = max(1, count / threads)
        for index in 0..<threads {
            let thread = Thread {
                ProcessorPinning.pinCurrentThread(index: index, of: threads)
                line.ready.add(1, ordering: .releasing)
                while !line.go.load(ordering: .acquiring) {}
                let checksum = loop(share)
                let end = ContinuousClock.now
                line.results.withLock { $0.append((end, checksum)) }
                finished.signal()
                exit.wait()
            }
            thread.start()
        }
        while line.ready.load(ordering: .acquiring) < threads {
            Thread.sleep(forTimeInterval: 0.000_05)
        }
        var start = ContinuousClock.now
        window {
            start = ContinuousClock.now
            line.go.store(true, ordering: .releasing)
            for _ in 0..<threads {
                finished.wait()
            }
        }
        for _ in 0..<threads {
            exit.signal()
        }
        return line.results.withLock { results in
            let end = results.map(\.end).max() ?? start
            return ((end - start).nanoseconds, results.reduce(0) { $0 &+ $1.checksum })
        }
    }
}

/// What the threads of one run share: the ready count, the start signal and their results.
private final class StartLine: Sendable {
    let ready = Atomic(0)
    let go = Atomic(false)
    let results: Mutex<[(end: ContinuousClock.Instant, checksum: UInt)]>

    init(threads: Int) {
        var results: [(end: ContinuousClock.Instant, checksum: UInt)] = []
        // Reserved now, so that the threads' appends allocate nothing while allocations are counted.
        results.reserveCapacity(threads)
        self.results = Mutex(results)
    }
}
