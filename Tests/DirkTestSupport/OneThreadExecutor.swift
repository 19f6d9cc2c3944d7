import Foundation

/// A task executor that runs every job on one thread of its own, in the order they come, so that a
/// test can make tasks take turns on one thread.
///
/// ```swift
/// let executor = OneThreadExecutor()
/// defer { executor.stop() }
/// await withTaskExecutorPreference(executor) { await work() }
/// ```
public final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `isStopped` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isStopped = false

    /// Starts the executor's thread, which runs until ``stop()``.
    public init() {
        let thread = Thread { [self] in runJobs() }
        thread.start()
    }

    /// Runs `job` on the executor's thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once it has run the jobs enqueued so far.
    public func stop() {
        condition.lock()
        isStopped = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isStopped { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
