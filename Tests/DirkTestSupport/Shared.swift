import Foundation
import Testing

/// Counts how often something happened; safe from any thread.
///
/// Guarded by a lock rather than an `Atomic`, whose `Synchronization` module needs macOS 15, above
/// the platforms Dirk supports.
public final class Counter: Sendable {
    private let value: LockedBox<Int>

    /// A counter that starts at `start`.
    public init(start: Int = 0) {
        value = LockedBox(start)
    }

    /// Adds one and returns the new count.
    @discardableResult
    public func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    public var count: Int { value.withLock { $0 } }
}

/// A value guarded by a lock, for collecting results from many threads.
public final class LockedBox<Value>: @unchecked Sendable {
    // `value` is guarded by `lock` (an NSLock, which ThreadSanitizer sees).
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}

#if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
/// What a trapped child process wrote to standard error.
public func standardError(of result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}
#endif

/// Prints a figure that a reliability test measured (seeds, counts), only when the environment
/// variable `DIRK_TEST_REPORT` is set, so that `swift test` prints nothing else by default:
/// `DIRK_TEST_REPORT=1 swift test --filter DirkReliabilityTests`.
public func report(_ message: @autoclosure () -> String) {
    if ProcessInfo.processInfo.environment["DIRK_TEST_REPORT"] != nil { print(message()) }
}
