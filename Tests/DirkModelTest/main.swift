// The long run of the model test: many seeds of random programs, run against Dirk and checked
// against the reference model (see Tests/DirkModelTesting).
//
//     swift run -c release DirkModelTest --seeds 10000           # seeds 1 to 10,000
//     swift run -c release DirkModelTest --seeds 1000 --from 5001
//     swift run -c release DirkModelTest --seed 1234              # replays one seed, and prints its program
//
// It prints what the run covered: programs, components, providers, operations, faults injected,
// calls refused by a shutdown, instances built; and, for a seed that diverges from the model, the
// seed, what diverged and the program. A seed that hangs for `--timeout` seconds (default 120) ends
// the run; a seed that crashes names itself on standard error.
import DirkModelTesting
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

var arguments = CommandLine.arguments.dropFirst()
var count = 1_000
var first: UInt64 = 1
var replay: UInt64?
var timeout = 120
while let argument = arguments.popFirst() {
    switch argument {
    case "--seeds": count = Int(arguments.popFirst() ?? "") ?? count
    case "--from": first = UInt64(arguments.popFirst() ?? "") ?? first
    case "--seed": replay = UInt64(arguments.popFirst() ?? "")
    case "--timeout": timeout = Int(arguments.popFirst() ?? "") ?? timeout
    default:
        print("usage: DirkModelTest [--seeds N] [--from SEED] [--seed SEED] [--timeout SECONDS]")
        exit(2)
    }
}
let seeds: [UInt64] = replay.map { [$0] } ?? (0..<UInt64(count)).map { first + $0 }

/// The seed under way, which the crash handler and the watchdog name.
nonisolated(unsafe) var current: UInt64 = 0
nonisolated(unsafe) var started = Date()
nonisolated(unsafe) let message = UnsafeMutablePointer<CChar>.allocate(capacity: 128)

func noteSeed(_ seed: UInt64) {
    current = seed
    started = Date()
    let text = Array("DirkModelTest: stopped in seed \(seed); replay it with --seed \(seed)\n".utf8CString)
    for (index, byte) in text.prefix(127).enumerated() { message[index] = byte }
    message[min(text.count, 127)] = 0
}

for signal in [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS] {
    _ = Foundation.signal(signal) { number in
        _ = write(2, message, strlen(message))
        Foundation.signal(number, SIG_DFL)
        raise(number)
    }
}

// The watchdog: a seed that runs longer than `timeout` hangs.
let limit = timeout
Thread {
    while true {
        sleep(1)
        if Date().timeIntervalSince(started) > Double(limit) {
            print("DirkModelTest: seed \(current) did not finish within \(limit) s: a hang")
            print(ModelProgram.random(seed: current))
            exit(3)
        }
    }
}.start()

var (components, providers, operations, faults, refused, instances, failed) = (0, 0, 0, 0, 0, 0, 0)
let clock = Date()
// Written unbuffered, so that a crash in the replay loses none of it.
if let replay { FileHandle.standardError.write(Data("\(ModelProgram.random(seed: replay))\n".utf8)) }
for seed in seeds {
    noteSeed(seed)
    let report = await ModelTest.run(seed: seed)
    components += report.components
    providers += report.providers
    operations += report.operations
    faults += report.faults
    refused += report.refused
    instances += report.instances
    if !report.divergences.isEmpty || replay != nil {
        if !report.divergences.isEmpty { failed += 1 }
        print("seed \(seed): \(report.divergences.count) divergences")
        for divergence in report.divergences.prefix(20) { print("  - \(divergence)") }
        if replay == nil { print(report.program) }
    }
    if seeds.count >= 1_000, (seed - first + 1) % 1_000 == 0 {
        print(
            "DirkModelTest: \(seed - first + 1) seeds, \(failed) diverged, \(Int(Date().timeIntervalSince(clock))) s"
        )
    }
}
print(
    "DirkModelTest: \(seeds.count) programs (\(components) components, \(providers) providers), "
        + "\(operations) operations, \(faults) faults injected, \(refused) calls refused by a shutdown, "
        + "\(instances) instances; \(failed) diverged, in \(Int(Date().timeIntervalSince(clock))) s")
for known in ModelTest.knownDivergences { print("  known, not exercised: \(known)") }
exit(failed == 0 ? 0 : 1)
