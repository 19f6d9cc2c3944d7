import DirkBenchmarkSuite
import Foundation

// Counts the heap allocations per operation of every selected scenario and implementation, with
// the malloc interposer linked into this process, and prints them as `AllocationCounts` text.
// DirkBenchmarks runs it after timing, with the options it was given; it is kept apart so that
// the interposer sits in none of the timed loops.

let options = Options.parseCommandLine(program: "DirkBenchmarkAllocations")

guard AllocationCounter.isAvailable else {
    printError("DirkBenchmarkAllocations: the malloc interposer does not see this process's allocations")
    exit(3)
}

var bench = Bench(plan: options.plan)
var counts = AllocationCounts()
for scenario in options.selectedScenarios {
    let perOperation = bench.countAllocations(
        in: scenario, implementations: options.implementations, with: AllocationCounter.count)
    for (implementation, allocations) in perOperation {
        counts.record(allocations, scenario: scenario.name, implementation)
    }
}
print(counts.encoded, terminator: "")
