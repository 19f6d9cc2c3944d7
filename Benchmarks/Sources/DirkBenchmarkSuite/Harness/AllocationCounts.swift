/// Heap allocations per operation, by scenario and implementation, as the allocation pass counts
/// them in its own process and hands them to the timing process.
///
/// On the way they are text, one count per line: `scenario implementation allocations`, for
/// example `single dirk 0.0`.
package struct AllocationCounts: Equatable {
    private var values: [Key: Double] = [:]

    private struct Key: Hashable {
        let scenario: String
        let implementation: Implementation
    }

    package init() {}

    /// Reads counts written by `encoded`; nil if a line is not a count.
    package init?(decoding text: some StringProtocol) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let implementation = Implementation(rawValue: String(fields[1])),
                let value = Double(fields[2])
            else { return nil }
            record(value, scenario: String(fields[0]), implementation)
        }
    }

    package mutating func record(_ perOperation: Double, scenario: String, _ implementation: Implementation) {
        values[Key(scenario: scenario, implementation: implementation)] = perOperation
    }

    package func perOperation(scenario: String, _ implementation: Implementation) -> Double? {
        values[Key(scenario: scenario, implementation: implementation)]
    }

    /// The counts as text, one per line, in no particular order.
    package var encoded: String {
        values.map { "\($0.key.scenario) \($0.key.implementation.rawValue) \($0.value)\n" }.joined()
    }
}

/// What became of the allocation pass.
package enum AllocationPassOutcome {
    /// The pass ran and counted.
    case counted(AllocationCounts)
    /// `--no-allocations` asked for none.
    case skipped
    /// The pass could not count, for the reason given.
    case unavailable(String)
}
