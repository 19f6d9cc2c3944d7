import Dispatch
import Testing

/// Runs `body` on another thread and fails the test, instead of hanging it, if `body` has not
/// finished after `seconds`. A safety net for deadlock tests, not a timing assertion.
public func withWatchdog(
    seconds: Int = 60, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) {
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        finished.signal()
    }
    if finished.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        Issue.record("Deadlock: the work did not finish within \(seconds) s", sourceLocation: sourceLocation)
    }
}
