/// What an agent waiting for a build is told when it is woken.
package enum WaitEvent {
    /// The build ended: its instance, or the error its factory threw.
    case finished(Result<AnyObject, any Error>)
    /// Look again: a cycle among waiting agents may now be broken by this one, or the build it
    /// waited for ended without leaving an instance to share.
    case recheck
    /// The waiting task was cancelled.
    case cancelled
}

extension WaitEvent {
    /// The error of a build that ended with one.
    package var error: (any Error)? { if case .finished(.failure(let error)) = self { error } else { nil } }

    /// The instance of a build that ended with one, for the waiter in the step `step`, or nil to
    /// claim again; throws the error of one that ended with an error, as `Failure`.
    func value<Failure: Error>(as _: Failure.Type, at step: Step) throws(Failure) -> AnyObject? {
        switch self {
        case .finished(.success(let value)): return value
        case .finished(.failure(let error)): throw Diagnostics.typedError(error, as: Failure.self, at: step)
        case .recheck, .cancelled: return nil
        }
    }
}

/// A `WaitEvent` on its way to a waiting task.
///
/// Its value crosses from the task that built it to the task that waits, as every cached instance
/// reaches every caller on any thread: sharing one instance is what a cache is for, and whether the
/// instance may be shared is its own type's concern, as with any singleton.
package struct Delivery: @unchecked Sendable { package let event: WaitEvent }

/// Something waiting for a build: a thread asleep on its parker, or a suspended task.
///
/// Each case is one reference, so that a cell's state, which keeps its waiters, has a layout
/// known where it is compiled: a `CheckedContinuation` held inline would not, its module being
/// built for library evolution, and every copy and release of a cell's state would then go through
/// its type's witnesses.
package enum Waiter {
    case thread(Parker<WaitEvent>)
    case task(TaskWaiter)

    /// Wakes the waiter with `event`. Call it once, outside any lock.
    package func resume(with event: WaitEvent) {
        switch self {
        case .thread(let parker): parker.deliver(event)
        case .task(let task): task.continuation.resume(returning: Delivery(event: event))
        }
    }
}

/// An agent waiting for a build: for its instance, or (`forConfiguration`) only until the instance
/// is configured, as a resolution that took it half-configured does before it ends.
package typealias Waiting = (id: UInt64, agent: BuildAgent, waiter: Waiter, forConfiguration: Bool)

/// A suspended task waiting for a build, as a `Waiter` keeps it.
package final class TaskWaiter: Sendable {
    let continuation: CheckedContinuation<Delivery, Never>

    package init(_ continuation: CheckedContinuation<Delivery, Never>) { self.continuation = continuation }
}
