/// Counts the heap allocations that all threads make while `body` runs. The executable that links
/// an allocation counter supplies it; the library links none.
package typealias CountAllocations = (_ body: () -> Void) -> Int

extension Bench {
    /// The heap allocations per operation of each of `scenario`'s implementations that is among
    /// `implementations`.
    ///
    /// Each implementation is prepared, calibrated and warmed up as `measure(_:implementations:)`
    /// does; then `count` counts one more batch. In a parallel workload it counts the threads'
    /// loops, not the creation or exit of the threads.
    package mutating func countAllocations(
        in scenario: Scenario, implementations: [Implementation], with count: @escaping CountAllocations
    ) -> [(implementation: Implementation, perOperation: Double)] {
        var counts: [(implementation: Implementation, perOperation: Double)] = []
        for (implementation, prepare) in scenario.preparations where implementations.contains(implementation)
        {
            let workload = prepare()
            let iterations = calibratedIterations(for: workload)
            _ = time(workload, iterations: iterations)  // warm-up at full batch size
            let allocations = allocations(in: workload, iterations: iterations, count: count)
            let operations = iterations * scenario.operationsPerIteration
            counts.append((implementation, Double(allocations) / Double(operations)))
        }
        return counts
    }

    private mutating func allocations(
        in workload: Workload, iterations: Int, count: @escaping CountAllocations
    ) -> Int {
        switch workload {
        case .serial:
            return count { _ = time(workload, iterations: iterations) }
        case .parallel(let threads, let loop):
            var allocations = 0
            let run = ConcurrentRun.run(
                threads: threads, count: iterations, window: { allocations = count($0) }, loop)
            checksum &+= run.checksum
            return allocations
        }
    }
}
