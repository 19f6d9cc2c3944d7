/// The ways of building the same object graph that the scenarios compare. Every scenario has the
/// hand-written one, its baseline.
package enum Implementation: String, CaseIterable, Sendable {
    /// Plain Swift: lazy vars and factory methods, each accessor `@inline(never)`.
    case handwritten
    /// Components and modules of the library under test.
    case dirk
    /// Swinject 2.10.0's `Container`.
    case swinject

    /// The name shown in the table.
    package var title: String {
        switch self {
        case .handwritten: "hand-written"
        case .dirk: "Dirk"
        case .swinject: "Swinject"
        }
    }
}

/// Performs `count` iterations of a scenario's operation and returns the identifiers of every
/// result, summed, so that the optimizer cannot drop the work.
package typealias Loop = (_ count: Int) -> UInt

/// How the harness runs a loop.
package enum Workload {
    /// On the calling thread; the harness times the call.
    case serial(Loop)
    /// On `threads` new threads at once, each doing its share of the iterations; the harness
    /// times from the moment it releases them until the last one finishes.
    case parallel(threads: Int, @Sendable (_ count: Int) -> UInt)
}

/// One measured situation, set up identically for each implementation.
package struct Scenario {
    /// Builds an implementation's objects, warms what the scenario says is cached, and returns
    /// the loop to time. Called once per process and implementation.
    package typealias Preparation = () -> Workload

    /// The name used in the table, in the JSON and by `--only`.
    package let name: String
    /// Resolutions performed by one iteration of the loop; times and allocations are reported
    /// per resolution.
    package let operationsPerIteration: Int
    /// The implementations the scenario compares, in table order, each with its preparation.
    let preparations: [(implementation: Implementation, prepare: Preparation)]

    /// A scenario with a hand-written baseline and any of the other implementations.
    init(
        name: String, operationsPerIteration: Int = 1,
        handwritten: @escaping Preparation,
        dirk: Preparation? = nil,
        swinject: Preparation? = nil
    ) {
        self.name = name
        self.operationsPerIteration = operationsPerIteration
        let all: [(Implementation, Preparation?)] = [
            (.handwritten, handwritten), (.dirk, dirk), (.swinject, swinject),
        ]
        preparations = all.compactMap { implementation, prepare in
            prepare.map { (implementation, $0) }
        }
    }

    /// The implementations the scenario compares, in table order.
    package var implementations: [Implementation] {
        preparations.map(\.implementation)
    }
}

/// The bits of `object`'s identity, which loops add up so that every result is used.
@inline(__always)
func bits(of object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
}
