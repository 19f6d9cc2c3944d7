/// How long and how often the harness measures.
struct MeasurementPlan {
    /// Timed batches per implementation, after warm-up.
    let rounds: Int
    /// The wall time each timed batch aims for.
    let batchNanoseconds: Double
    /// Iterations per batch, when fixed instead of calibrated: the loops then execute the same
    /// instructions on every run, which profilers such as callgrind can compare.
    var fixedIterations: Int?

    /// The default run: about 10 ms per batch, 15 rounds.
    static let full = MeasurementPlan(rounds: 15, batchNanoseconds: 10_000_000)
    /// A smoke run for CI: about 0.2 ms per batch, 3 rounds.
    static let quick = MeasurementPlan(rounds: 3, batchNanoseconds: 200_000)
}

/// What one implementation measured in one scenario.
struct ImplementationResult {
    let implementation: Implementation
    /// Nanoseconds per operation over the rounds.
    let median: Double
    let min: Double
    let max: Double
    /// Heap allocations per operation, or nil when allocations could not be counted.
    let allocations: Double?
}

/// What every implementation measured in one scenario.
struct ScenarioResult {
    let name: String
    let results: [ImplementationResult]

    func result(for implementation: Implementation) -> ImplementationResult? {
        results.first { $0.implementation == implementation }
    }

    /// The implementation's median divided by the hand-written median.
    func ratio(for implementation: Implementation) -> Double? {
        guard let baseline = result(for: .handwritten), let measured = result(for: implementation),
            baseline.median > 0
        else { return nil }
        return measured.median / baseline.median
    }
}

/// Measures scenarios: warms up and calibrates each implementation, times interleaved rounds,
/// then counts allocations in one more batch.
struct Bench {
    let plan: MeasurementPlan
    /// The sum of every loop's results; printed, so that no result can be optimized away.
    private(set) var checksum: UInt = 0

    init(plan: MeasurementPlan) {
        self.plan = plan
    }

    mutating func measure(_ scenario: Scenario, implementations: [Implementation]) -> ScenarioResult {
        let workloads = implementations.map { scenario.prepare($0) }
        let iterations = workloads.map { calibratedIterations(for: $0) }
        for (workload, count) in zip(workloads, iterations) {
            _ = time(workload, iterations: count)  // warm-up at full batch size
        }

        var samples = Array(repeating: [Double](), count: implementations.count)
        for round in 0..<plan.rounds {
            // Rotate the order every round, so that no implementation always runs first or last.
            for step in implementations.indices {
                let index = (step + round) % implementations.count
                let nanoseconds = time(workloads[index], iterations: iterations[index])
                let operations = iterations[index] * scenario.operationsPerIteration
                samples[index].append(nanoseconds / Double(operations))
            }
        }

        let results = implementations.indices.map { index in
            let sorted = samples[index].sorted()
            let operations = iterations[index] * scenario.operationsPerIteration
            return ImplementationResult(
                implementation: implementations[index],
                median: median(of: sorted), min: sorted.first ?? 0, max: sorted.last ?? 0,
                allocations: allocations(in: workloads[index], iterations: iterations[index])
                    .map { Double($0) / Double(operations) })
        }
        return ScenarioResult(name: scenario.name, results: results)
    }

    /// The iterations that fill one batch: doubles a trial batch until it lasts a tenth of the
    /// target, then scales it up.
    private mutating func calibratedIterations(for workload: Workload) -> Int {
        let granularity = workload.threads
        if let fixed = plan.fixedIterations {
            return Swift.max(1, fixed / granularity) * granularity
        }
        var iterations = granularity
        while true {
            let nanoseconds = time(workload, iterations: iterations)
            if nanoseconds >= plan.batchNanoseconds / 10 || iterations >= 1 << 40 {
                let scaled = Double(iterations) * plan.batchNanoseconds / Swift.max(nanoseconds, 1)
                return Swift.max(1, Int(scaled) / granularity) * granularity
            }
            iterations *= nanoseconds < plan.batchNanoseconds / 1000 ? 16 : 2
        }
    }

    private mutating func time(_ workload: Workload, iterations: Int) -> Double {
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

    private mutating func allocations(in workload: Workload, iterations: Int) -> Int? {
        guard AllocationCounter.isAvailable else { return nil }
        switch workload {
        case .serial:
            return AllocationCounter.count { _ = time(workload, iterations: iterations) }
        case .parallel(let threads, let loop):
            // Counts the timed part only, not the creation and exit of the threads.
            var allocations = 0
            let run = ConcurrentRun.run(
                threads: threads, count: iterations, window: { allocations = AllocationCounter.count($0) },
                loop)
            checksum &+= run.checksum
            return allocations
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
