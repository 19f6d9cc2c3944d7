/// The command line: `DirkBenchmarks [--json] [--quick] [--only NAMES] [--impl NAMES] …`.
///
/// `DirkBenchmarkAllocations` takes the same options and uses those that choose what to run and
/// how long a batch lasts.
package struct Options {
    package var json = false
    package var plan = MeasurementPlan.full
    /// The scenarios to run, or nil for all of them.
    var scenarios: Set<String>?
    package var implementations = Implementation.allCases
    /// Whether to run the allocation pass.
    package var countsAllocations = true

    /// The help text of `program`, which takes these options.
    package static func usage(program: String) -> String {
        """
        Usage: \(program) [options]
          --json             print one JSON object instead of the table
          --quick            a short smoke pass (3 rounds of ~0.2 ms)
          --only NAMES       run only these scenarios, comma-separated
                             \(wrapped(Scenarios.all.map(\.name), indent: 21))
          --impl NAMES       run only these implementations, comma-separated
                             (\(Implementation.allCases.map(\.rawValue).joined(separator: ",")))
          --rounds N         timed rounds per implementation (default 15, or 3 with --quick)
          --batch-ms MS      target duration of one timed batch (default 10, or 0.2 with --quick)
          --iterations N     run exactly N iterations per batch instead of calibrating, for profilers;
                             each loop then runs N × (rounds + 1) times in this process: warm-up, rounds
          --no-allocations   skip the allocation pass (the second process that counts allocations)
          --help             show this help
        """
    }

    /// Parses `arguments`, the command line without the program's name.
    package static func parse(_ arguments: [String]) throws(OptionsError) -> Options {
        var options = Options()
        var rounds: Int?
        var batchMilliseconds: Double?
        var iterations: Int?
        var remaining = arguments[...]

        func value(of option: String) throws(OptionsError) -> String {
            guard let value = remaining.popFirst() else { throw OptionsError("\(option) needs a value") }
            return value
        }
        func positiveInteger(of option: String) throws(OptionsError) -> Int {
            guard let number = Int(try value(of: option)), number > 0 else {
                throw OptionsError("\(option) needs a positive whole number")
            }
            return number
        }

        while let option = remaining.popFirst() {
            switch option {
            case "--json":
                options.json = true
            case "--quick":
                options.plan = .quick
            case "--only":
                let names = Set(try value(of: option).split(separator: ",").map(String.init))
                let known = Set(Scenarios.all.map(\.name))
                if let unknown = names.subtracting(known).first {
                    throw OptionsError("unknown scenario '\(unknown)'")
                }
                options.scenarios = names
            case "--impl":
                var implementations: Set<Implementation> = []
                for name in try value(of: option).split(separator: ",") {
                    guard let implementation = Implementation(rawValue: String(name)) else {
                        throw OptionsError("unknown implementation '\(name)'")
                    }
                    implementations.insert(implementation)
                }
                // The table keeps its order whatever order the names came in.
                options.implementations = Implementation.allCases.filter(implementations.contains)
            case "--rounds":
                rounds = try positiveInteger(of: option)
            case "--iterations":
                iterations = try positiveInteger(of: option)
            case "--batch-ms":
                guard let milliseconds = Double(try value(of: option)), milliseconds > 0 else {
                    throw OptionsError("--batch-ms needs a positive number")
                }
                batchMilliseconds = milliseconds
            case "--no-allocations":
                options.countsAllocations = false
            case "--help", "-h":
                throw OptionsError(nil)
            default:
                throw OptionsError("unknown option '\(option)'")
            }
        }
        options.plan = MeasurementPlan(
            rounds: rounds ?? options.plan.rounds,
            batchNanoseconds: batchMilliseconds.map { $0 * 1e6 } ?? options.plan.batchNanoseconds,
            fixedIterations: iterations)
        return options
    }
}

/// `names`, comma-separated, in parentheses, broken into lines of at most 100 characters whose
/// continuations are indented by `indent` spaces.
private func wrapped(_ names: [String], indent: Int) -> String {
    var lines = ["("]
    for (index, name) in names.enumerated() {
        let item = name + (index == names.count - 1 ? ")" : ",")
        if lines[lines.count - 1].count + item.count > 100 - indent {
            lines.append("")
        }
        lines[lines.count - 1] += item
    }
    return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
}

/// A command-line mistake, or a request for help when `message` is nil.
package struct OptionsError: Error {
    package let message: String?

    init(_ message: String?) {
        self.message = message
    }
}

extension Options {
    /// The selected scenarios, in table order.
    package var selectedScenarios: [Scenario] {
        Scenarios.all.filter { scenarios?.contains($0.name) ?? true }
    }

    /// The options that make `DirkBenchmarkAllocations` count what this run times: the same
    /// scenarios, implementations and batches.
    package var allocationPassArguments: [String] {
        var arguments = [
            "--only", selectedScenarios.map(\.name).joined(separator: ","),
            "--impl", implementations.map(\.rawValue).joined(separator: ","),
            "--batch-ms", "\(plan.batchNanoseconds / 1e6)",
        ]
        if let iterations = plan.fixedIterations {
            arguments += ["--iterations", "\(iterations)"]
        }
        return arguments
    }
}
