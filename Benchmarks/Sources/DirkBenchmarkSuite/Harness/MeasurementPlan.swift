/// How long and how often the harness measures.
package struct MeasurementPlan {
    /// Timed batches per implementation, after warm-up.
    package let rounds: Int
    /// The wall time each timed batch aims for.
    package let batchNanoseconds: Double
    /// Iterations per batch, when fixed instead of calibrated: the loops then execute the same
    /// instructions on every run, which profilers such as callgrind can compare.
    package var fixedIterations: Int?

    /// The default run: about 10 ms per batch, 15 rounds.
    static let full = MeasurementPlan(rounds: 15, batchNanoseconds: 10_000_000)
    /// A smoke run for CI: about 0.2 ms per batch, 3 rounds.
    static let quick = MeasurementPlan(rounds: 3, batchNanoseconds: 200_000)
}
