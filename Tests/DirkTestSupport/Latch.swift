/// Opens once; tasks that wait for it before then resume when it does, and later ones go straight
/// on. Safe to open from a thread.
///
/// A waiting task waits even if it is cancelled: a test that cancels a task held at a latch, such as
/// a build's, decides itself when that task goes on.
///
/// Keeps its waiting tasks' continuations itself, not in an `AsyncStream`: many tasks wait on one
/// latch, and the `AsyncStream` of Swift 6.0's runtime resumes only one of its waiting consumers
/// when it finishes (swiftlang/swift#71412), which left the others waiting forever.
public final class Latch: Sendable {
    /// The tasks that wait; nil once the latch is open.
    private let waiting = LockedBox<[CheckedContinuation<Void, Never>]?>([])

    public init() {}

    /// A latch that is open already.
    public static var opened: Latch {
        let latch = Latch()
        latch.open()
        return latch
    }

    /// Lets every waiting task, and every later one, go on.
    public func open() {
        let waiters = waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the latch opens.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = waiting.withLock { waiting in
                waiting?.append(continuation)
                return waiting == nil
            }
            if isOpen { continuation.resume() }
        }
    }
}
