/// Opens once; tasks that wait for it before then resume when it does. Safe to open from a thread.
///
/// Keeps its waiting tasks' continuations itself, not in an `AsyncStream`: many tasks wait on one
/// latch, and the `AsyncStream` of Swift 6.0's runtime resumes only one of its waiting consumers
/// when it finishes (swiftlang/swift#71412), which left the others waiting forever.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = LockedBox(State())

    public init() {}

    /// Lets every waiting task, and every later one, go on.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the latch opens, or until the task is cancelled, as the async watchdog
    /// cancels a body that hangs.
    public func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goesOn = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if goesOn { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }
}
