import Foundation

// Runs every selected scenario for every selected implementation in this one process and prints
// the table, or with `--json` one JSON object. See Benchmarks/README.md.

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    guard let message = error.message else {
        print(Options.usage)
        exit(0)
    }
    printError("DirkBenchmarks: \(message)\n\n\(Options.usage)")
    exit(2)
}

#if DEBUG
    printError("DirkBenchmarks: this is a debug build; measure with `swift run -c release`.")
#endif

var bench = Bench(plan: options.plan)
let scenarios = Scenarios.all.filter { options.scenarios?.contains($0.name) ?? true }
let results = scenarios.map { bench.measure($0, implementations: options.implementations) }
let atomicNanoseconds = AtomicCost.measure(
    iterations: options.plan.fixedIterations == nil ? 2_000_000 : 1_000)
let report = Report(
    results: results, plan: options.plan, checksum: bench.checksum, atomicNanoseconds: atomicNanoseconds)
print(options.json ? report.json : report.table)
