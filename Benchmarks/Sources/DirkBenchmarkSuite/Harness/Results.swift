/// What one implementation measured in one scenario.
package struct ImplementationResult {
    package let implementation: Implementation
    /// Nanoseconds per operation over the rounds.
    package let median: Double
    package let min: Double
    package let max: Double
    /// Heap allocations per operation, from the allocation pass; nil when they were not counted.
    package var allocations: Double?
}

/// What every implementation measured in one scenario.
package struct ScenarioResult {
    package let name: String
    /// Every implementation the scenario has, in table order, whether measured in this run or not.
    package let implementations: [Implementation]
    /// The implementations measured in this run, in table order.
    package var results: [ImplementationResult]

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

    /// Sets each implementation's allocations per operation to what `counts` holds for it.
    package mutating func merge(_ counts: AllocationCounts) {
        for index in results.indices {
            results[index].allocations = counts.perOperation(scenario: name, results[index].implementation)
        }
    }
}
