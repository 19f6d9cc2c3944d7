/// The three ways of building the same object graph that every scenario compares.
enum Implementation: String, CaseIterable {
    /// Plain Swift: lazy vars and factory methods, each accessor `@inline(never)`.
    case handwritten
    /// Components and modules of the library under test.
    case dirk
    /// Swinject 2.10.0's `Container`.
    case swinject

    /// The name shown in the table.
    var title: String {
        switch self {
        case .handwritten: "hand-written"
        case .dirk: "Dirk"
        case .swinject: "Swinject"
        }
    }
}

/// Performs `count` iterations of a scenario's operation and returns the identifiers of every
/// result, summed, so that the optimizer cannot drop the work.
typealias Loop = (_ count: Int) -> UInt

/// How the harness runs a loop.
enum Workload {
    /// On the calling thread; the harness times the call.
    case serial(Loop)
    /// On `threads` new threads at once, each doing its share of the iterations; the harness
    /// times from the moment it releases them until the last one finishes.
    case parallel(threads: Int, @Sendable (_ count: Int) -> UInt)
}

/// One measured situation, set up identically for each implementation.
struct Scenario {
    /// The name used in the table, in the JSON and by `--only`.
    let name: String
    /// Resolutions performed by one iteration of the loop; times and allocations are reported
    /// per resolution.
    let operationsPerIteration: Int
    /// Builds the implementation's objects, warms what the scenario says is cached, and returns
    /// the loop to time. Called once per process.
    let prepare: (Implementation) -> Workload

    init(name: String, operationsPerIteration: Int = 1, prepare: @escaping (Implementation) -> Workload) {
        self.name = name
        self.operationsPerIteration = operationsPerIteration
        self.prepare = prepare
    }
}

/// The bits of `object`'s identity, which loops add up so that every result is used.
@inline(__always)
func bits(of object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
}
