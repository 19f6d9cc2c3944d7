/// Measures scenarios: warms up and calibrates each implementation, then times interleaved rounds.
/// Allocations are counted by another process (`countAllocations`, in
/// `Bench+Allocations.swift`), so that no allocation counter sits in the timed loops.
package struct Bench {
    let plan: MeasurementPlan
    /// The sum of every loop's results; printed, so that no result can be optimized away.
    package internal(set) var checksum: UInt = 0

    package init(plan: MeasurementPlan) {
        self.plan = plan
    }

    /// Times the implementations of `scenario` that are among `implementations`.
    package mutating func measure(_ scenario: Scenario, implementations: [Implementation]) -> ScenarioResult {
        let selected = scenario.preparations.filter { implementations.contains($0.implementation) }
        let workloads = selected.map { $0.prepare() }
        let iterations = workloads.map { calibratedIterations(for: $0) }
        for (workload, count) in zip(workloads, iterations) {
            _ = time(workload, iterations: count)  // warm-up at full batch size
        }

        var samples = Array(repeating: [Double](), count: workloads.count)
        for round in 0..<plan.rounds {
            // Rotate the order every round, so that no implementation always runs first or last.
            for step in workloads.indices {
                let index = (step + round) % workloads.count
                let nanoseconds = time(workloads[index], iterations: iterations[index])
                let operations = iterations[index] * scenario.operationsPerIteration
                samples[index].append(nanoseconds / Double(operations))
            }
        }

        let results = selected.indices.map { index in
            let sorted = samples[index].sorted()
            return ImplementationResult(
                implementation: selected[index].implementation,
                median: median(of: sorted), min: sorted.first ?? 0, max: sorted.last ?? 0,
                allocations: nil)
        }
        return ScenarioResult(
            name: scenario.name, implementations: scenario.implementations, results: results)
    }

    /// The iterations that fill one batch: doubles a trial batch until it lasts a tenth of the
    /// target, then scales it up.
    ///
    /// A parallel workload's trials run its loop on the calling thread alone: a trial on several
    /// threads can lose a scheduler's time slice while its threads start, which at small batch
    /// sizes would make the batch far too small. Its batches then last about the target on one
    /// thread's worth of work, shorter without contention and longer with it.
    mutating func calibratedIterations(for workload: Workload) -> Int {
        let granularity = workload.threads
        if let fixed = plan.fixedIterations {
            return Swift.max(1, fixed / granularity) * granularity
        }
        var iterations = granularity
        while true {
            let nanoseconds = trialTime(workload, iterations: iterations)
            if nanoseconds >= plan.batchNanoseconds / 10 || iterations >= 1 << 40 {
                let scaled = Double(iterations) * plan.batchNanoseconds / Swift.max(nanoseconds, 1)
                return Swift.max(1, Int(scaled) / granularity) * granularity
            }
            iterations *= nanoseconds < plan.batchNanoseconds / 1000 ? 16 : 2
        }
    }

    private mutating func trialTime(_ workload: Workload, iterations: Int) -> Double {
        switch workload {
        case .serial:
            return time(workload, iterations: iterations)
        case .parallel(_, let loop):
            let stopwatch = Stopwatch()
            let result = loop(iterations)
            let nanoseconds = stopwatch.elapsedNanoseconds
            checksum &+= result
            return nanoseconds
        }
    }

    mutating func time(_ workload: Workload, iterations: Int) -> Double {
        switch workload {
        case .serial(let loop):
            let stopwatch = Stopwatch()
            let result = runTimedLoop(loop, iterations: iterations)
            let nanoseconds = stopwatch.elapsedNanoseconds
            checksum &+= result
            return nanoseconds
        case .parallel(let threads, let loop):
            let run = ConcurrentRun.run(threads: threads, count: iterations, loop)
            checksum &+= run.checksum
            return run.nanoseconds
        }
    }

    private func median(of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}

extension Workload {
    /// The threads the workload runs on; batches are a multiple of it.
    var threads: Int {
        switch self {
        case .serial: 1
        case .parallel(let threads, _): threads
        }
    }
}

/// Runs a serial loop. Not inlined, so that a profiler can count only what happens inside it
/// (`Scripts/callgrind.sh` does).
@inline(never)
func runTimedLoop(_ loop: Loop, iterations: Int) -> UInt {
    loop(iterations)
}
