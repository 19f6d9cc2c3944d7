import Foundation
import Synchronization
import Testing

/// Counts how often something happened; safe from any thread.
public final class Counter: Sendable {
    private let value = Atomic(0)

    public init() {}

    @discardableResult
    public func increment() -> Int { value.add(1, ordering: .relaxed).newValue }

    public var count: Int { value.load(ordering: .relaxed) }
}

/// A value guarded by a lock, for collecting results from many threads.
public final class Locked<Value>: @unchecked Sendable {
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

/// What a trapped child process wrote to standard error.
public func standardError(of result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}
