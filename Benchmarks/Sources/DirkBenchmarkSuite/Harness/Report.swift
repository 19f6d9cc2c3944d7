import Foundation
import Synchronization

/// Formats results as the table people read or as the JSON object tools read.
package struct Report {
    let results: [ScenarioResult]
    let plan: MeasurementPlan
    let checksum: UInt
    /// Nanoseconds per uncontended atomic read-modify-write, measured in the same run.
    let atomicNanoseconds: Double
    /// Whether the allocations in `results` were counted.
    let allocationPass: AllocationPassOutcome

    package init(
        results: [ScenarioResult], plan: MeasurementPlan, checksum: UInt, atomicNanoseconds: Double,
        allocationPass: AllocationPassOutcome
    ) {
        self.results = results
        self.plan = plan
        self.checksum = checksum
        self.atomicNanoseconds = atomicNanoseconds
        self.allocationPass = allocationPass
    }

    /// One row per scenario and implementation.
    package var table: String {
        let batch =
            plan.fixedIterations.map { "\($0) iterations" } ?? "~\(milliseconds(plan.batchNanoseconds)) ms"
        var lines = [
            "Dirk benchmarks: \(plan.rounds) rounds of \(batch) per implementation and scenario, "
                + "interleaved, after warm-up.",
            "ns/op: median, min and max over the rounds. × hand: median / hand-written median. "
                + "allocs/op: heap allocations per operation, counted in a second process.",
            "",
            row("scenario", "implementation", "median ns/op", "min", "max", "× hand", "allocs/op"),
        ]
        for scenario in results {
            for (index, result) in scenario.results.enumerated() {
                lines.append(
                    row(
                        index == 0 ? scenario.name : "", result.implementation.title,
                        nanoseconds(result.median), nanoseconds(result.min), nanoseconds(result.max),
                        scenario.ratio(for: result.implementation).map { String(format: "%.2f", $0) } ?? "-",
                        result.allocations.map(allocationCount) ?? "n/a"))
            }
        }
        lines.append("")
        lines.append(
            "one uncontended atomic read-modify-write (a retain, a release): "
                + "\(nanoseconds(atomicNanoseconds)) ns")
        lines.append(pinningNote)
        lines.append("checksum \(String(checksum, radix: 16))")
        switch allocationPass {
        case .counted: break
        case .skipped: lines.append("allocations not counted (--no-allocations)")
        case .unavailable(let reason): lines.append("allocations not counted: \(reason)")
        }
        for scenario in results where scenario.results.isEmpty {
            let implementations = scenario.implementations.map(\.rawValue).joined(separator: ", ")
            lines.append("\(scenario.name): none of the selected implementations (it has \(implementations))")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"scenarios": [{"name": …, "handwritten_ns": …, "dirk_ns": …, "swinject_ns": …, …}]}`,
    /// with fields for every implementation the scenario has, null for those not measured.
    package var json: String {
        let scenarios = results.map { scenario in
            var fields = [("name", "\"\(scenario.name)\"")]
            for implementation in scenario.implementations {
                let result = scenario.result(for: implementation)
                fields.append(("\(implementation.rawValue)_ns", number(result?.median)))
            }
            for implementation in scenario.implementations {
                fields.append(
                    (
                        "\(implementation.rawValue)_allocs",
                        number(scenario.result(for: implementation)?.allocations)
                    ))
            }
            for implementation in scenario.implementations {
                let result = scenario.result(for: implementation)
                fields.append(("\(implementation.rawValue)_min_ns", number(result?.min)))
                fields.append(("\(implementation.rawValue)_max_ns", number(result?.max)))
            }
            for implementation in scenario.implementations where implementation != .handwritten {
                fields.append(
                    ("\(implementation.rawValue)_ratio", number(scenario.ratio(for: implementation))))
            }
            return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        return """
            {"rounds": \(plan.rounds), "batch_ms": \(number(plan.batchNanoseconds / 1e6)), \
            "atomic_rmw_ns": \(number(atomicNanoseconds)), "allocations": "\(allocationsState)", \
            "processors": \(ProcessorPinning.allowedProcessors.count), \
            "unpinned_threads": \(ProcessorPinning.failures.load(ordering: .relaxed)), \
            "checksum": "\(String(checksum, radix: 16))", "scenarios": [
              \(scenarios.joined(separator: ",\n  "))
            ]}
            """
    }

    /// Where the threads of the parallel scenarios ran.
    private var pinningNote: String {
        let processors = ProcessorPinning.allowedProcessors.count
        let failures = ProcessorPinning.failures.load(ordering: .relaxed)
        // Every parallel scenario runs two threads.
        guard ProcessorPinning.pinsThreads(2) else {
            return "parallel scenarios: threads not pinned (processors unknown or too few), "
                + "so contention varies between rounds"
        }
        return "parallel scenarios: one thread per processor (\(processors) processors)"
            + (failures == 0 ? "" : "; \(failures) threads could not be pinned")
    }

    private func row(_ columns: String...) -> String {
        let widths = [20, 15, 13, 10, 10, 8, 10]
        return zip(columns, widths).enumerated().map { index, column in
            let (text, width) = column
            let padding = String(repeating: " ", count: Swift.max(0, width - text.count))
            return index < 2 ? text + padding : padding + text
        }.joined(separator: " ")
    }

    /// `counted`, `skipped` or `unavailable`, for the JSON.
    private var allocationsState: String {
        switch allocationPass {
        case .counted: "counted"
        case .skipped: "skipped"
        case .unavailable: "unavailable"
        }
    }

    private func nanoseconds(_ value: Double) -> String {
        switch value {
        case ..<10: String(format: "%.2f", value)
        case ..<1000: String(format: "%.1f", value)
        default: String(format: "%.0f", value)
        }
    }

    private func allocationCount(_ value: Double) -> String {
        value < 0.005 ? "0" : String(format: "%.2f", value)
    }

    private func milliseconds(_ nanoseconds: Double) -> String {
        let value = nanoseconds / 1e6
        return value >= 1 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    private func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded()
            ? String(format: "%.0f", rounded) : String(format: "%.2f", rounded)
    }
}
