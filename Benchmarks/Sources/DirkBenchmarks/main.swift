import DirkBenchmarkSuite

// Times every selected scenario for every selected implementation in this one process, then runs
// DirkBenchmarkAllocations to count their allocations, and prints both in the table or, with
// `--json`, in one JSON object. See Benchmarks/README.md.

let options = Options.parseCommandLine(program: "DirkBenchmarks")

#if DEBUG
printError("DirkBenchmarks: this is a debug build; measure with `swift run -c release`.")
#endif

var bench = Bench(plan: options.plan)
var results = options.selectedScenarios.map { bench.measure($0, implementations: options.implementations) }
let atomicNanoseconds = AtomicCost.measure(
    iterations: options.plan.fixedIterations == nil ? 2_000_000 : 1_000)
let allocationPass = options.countsAllocations ? AllocationPass.run(options) : .skipped
if case .counted(let counts) = allocationPass {
    for index in results.indices { results[index].merge(counts) }
}
let report = Report(
    results: results, plan: options.plan, checksum: bench.checksum, atomicNanoseconds: atomicNanoseconds,
    allocationPass: allocationPass)
print(options.json ? report.json : report.table)
