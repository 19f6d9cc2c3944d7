/// Measures elapsed wall time with the system's monotonic clock.
struct Stopwatch {
    private let start = ContinuousClock.now

    /// Nanoseconds since the stopwatch was created.
    var elapsedNanoseconds: Double {
        (ContinuousClock.now - start).nanoseconds
    }
}

extension Duration {
    /// The duration in nanoseconds.
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
