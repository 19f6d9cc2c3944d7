/// The identity of the task that runs the caller, to tell one task's agent from another's.
///
/// **Why it is safe.** `UnsafeCurrentTask` holds one reference-sized field, the task's address,
/// which is read here as a number and never followed. A task's address is unique among running
/// tasks; an agent compares it only while its own task runs (while its outermost call is under
/// way, see `TaskAgent`), so a reused address is never taken for its old task.
enum CurrentTask {
    /// The current task's address, or zero outside any task.
    static var identity: UInt {
        withUnsafeCurrentTask { task in
            guard let task else { return 0 }
            return unsafeBitCast(task, to: UInt.self)
        }
    }
}
