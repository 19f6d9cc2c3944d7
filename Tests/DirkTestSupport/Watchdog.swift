import Dispatch
import Foundation
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

/// Runs `body` on `count` threads of their own at once, and returns when all have finished.
///
/// Dedicated threads, not Dispatch's pool: Dispatch adds a thread to its pool only every so often
/// when its threads block, so many blocked callers would take seconds to start.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            body(index)
            finished.signal()
        }
        thread.start()
    }
    for _ in 0..<count { finished.wait() }
}
