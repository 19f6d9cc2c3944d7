import Dispatch
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a watchdog waits by default: 60 s, or ten times that under ThreadSanitizer.
///
/// A bound on waits that must end, never a timing assertion. ThreadSanitizer slows every memory
/// access several times over, and on a two-core machine Swift's cooperative pool has two threads,
/// which the blocking stress tests that run in parallel can hold for a long time: a bound that fits
/// a normal run would then fail tests that are only waiting for a thread.
public let defaultWatchdogSeconds = isUnderThreadSanitizer ? 600 : 60

/// Runs `body` on a thread of its own and fails the test, instead of hanging it, if `body` has not
/// finished after `seconds`. A safety net for deadlock tests, not a timing assertion.
///
/// A thread of its own, not Dispatch's pool, which on a busy machine can take seconds to start
/// the body: the time is the body's.
public func withWatchdog(
    seconds: Int = defaultWatchdogSeconds, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) {
    let finished = DispatchSemaphore(value: 0)
    Thread {
        body()
        finished.signal()
    }.start()
    if finished.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        Issue.record("Deadlock: the work did not finish within \(seconds) s", sourceLocation: sourceLocation)
    }
}

/// Runs the async `body` in a task of its own and returns what it returns, or records an issue and
/// returns nil, instead of hanging the test, if `body` has not finished after `seconds`. A safety
/// net for tests that wait for builds or gates, not a timing assertion.
///
/// The body runs in an unstructured task, which the watchdog cancels and then leaves behind when
/// the time is up: a structured child would make the test wait for a hung body forever. The time
/// is kept by a thread of its own, so that a body that blocks the cooperative pool cannot stop it,
/// and it starts when the body does: on a busy machine, a task can wait seconds for a thread of the
/// pool, which the stress tests running beside it hold. (The wait for the start is bounded by
/// `seconds` too.) `reportHang` records the issue; the watchdog's own tests replace it.
@discardableResult
public func withAsyncWatchdog<Result: Sendable>(
    seconds: Int = defaultWatchdogSeconds, sourceLocation: SourceLocation = #_sourceLocation,
    reportHang: (String, SourceLocation) -> Void = {
        Issue.record(Comment(rawValue: $0), sourceLocation: $1)
    },
    _ body: @escaping @Sendable () async -> Result
) async -> Result? {
    let (started, finished) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let task = Task {
        started.signal()
        let result = await body()
        finished.signal()
        return result
    }
    let inTime = await withCheckedContinuation { continuation in
        Thread {
            let hasStarted = started.wait(timeout: .now() + .seconds(seconds)) == .success
            continuation.resume(
                returning: hasStarted && finished.wait(timeout: .now() + .seconds(seconds)) == .success)
        }.start()
    }
    guard inTime else {
        task.cancel()
        reportHang("Deadlock: the async work did not finish within \(seconds) s", sourceLocation)
        return nil
    }
    return await task.value
}

/// Ends the process with success, after writing why to standard error, if it is still running
/// `seconds` from now. The first call in the body of an exit test whose misuse once hung, or could
/// hang: Swift Testing gives exit tests no time limit, so a misuse that hangs instead of stopping
/// the program would hang the whole run. Success is what an exit test that expects `.failure` does
/// not accept, so the test fails, with the watchdog's line in the child's standard error.
///
/// The time is kept by a thread of its own, which a deadlock elsewhere in the process cannot
/// stop. Call it only in an exit test's body: it ends the process it runs in.
public func armExitTestWatchdog(seconds: Int = defaultWatchdogSeconds) {
    let thread = Thread {
        sleep(UInt32(seconds))
        let line = "watchdog: the misuse did not stop the program within \(seconds) s\n"
        line.utf8CString.withUnsafeBufferPointer { text in
            _ = write(STDERR_FILENO, text.baseAddress, text.count - 1)
        }
        _exit(0)
    }
    thread.start()
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

/// Checks made off the test's own thread, in a watchdog's body or on threads the test starts, where
/// Swift Testing cannot tell which test an issue belongs to. `expectNone()`, called on the test's
/// thread afterwards, reports the failed checks there, credited to the test.
public final class OffThreadChecks: Sendable {
    private let failures = LockedBox<[String]>([])

    public init() {}

    /// Records a failure, described by `message`, unless `condition` holds.
    public func check(
        _ condition: Bool, _ message: @autoclosure () -> String = "", file: StaticString = #fileID,
        line: UInt = #line
    ) {
        guard !condition else { return }
        let failure = "\(file):\(line): \(message())"
        failures.withLock { $0.append(failure) }
    }

    /// What fails the test if any check failed, listing the first few; nil if none did.
    public var summary: String? {
        let failures = failures.withLock { $0 }
        return failures.isEmpty ? nil : "\(failures.count) checks failed: \(failures.prefix(5))"
    }

    /// Fails the test if any check failed, listing the first few.
    public func expectNone(sourceLocation: SourceLocation = #_sourceLocation) {
        let summary = summary
        #expect(summary == nil, "\(summary ?? "")", sourceLocation: sourceLocation)
    }
}
