import CDirk

/// The task that runs the caller: whether there is one, and its identity, to tell one task's agent
/// from another's.
///
/// **Why it is safe.** The task's address, from the concurrency runtime (`dirk_current_task`), is
/// read as a number and never followed. A task's address is unique among running tasks; an agent
/// compares it only while its own task runs (while its outermost call is under way, see
/// `TaskAgent`), so a reused address is never taken for its old task.
enum CurrentTask {
    /// The current task's address, or zero outside any task.
    static var identity: UInt { UInt(dirk_current_task()) }

    /// Whether the caller runs in a task.
    static var isRunning: Bool { dirk_current_task() != 0 }
}
