import Synchronization

/// The cost of one uncontended atomic read-modify-write on this machine, measured in the same run
/// as the scenarios, to read their figures by: every retain and release of a Swift object, and
/// every compare-and-exchange, is one such operation.
package enum AtomicCost {
    /// The median nanoseconds per operation over `rounds` rounds of `iterations` increments.
    package static func measure(rounds: Int = 7, iterations: Int = 2_000_000) -> Double {
        let counter = Atomic<Int>(0)
        var samples: [Double] = []
        for _ in 0..<rounds {
            let stopwatch = Stopwatch()
            increment(counter, times: iterations)
            samples.append(stopwatch.elapsedNanoseconds / Double(iterations))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    @inline(never)
    private static func increment(_ counter: borrowing Atomic<Int>, times: Int) {
        for _ in 0..<times { counter.wrappingAdd(1, ordering: .relaxed) }
    }
}
