import CDirk

/// The count of live task agents, process-wide, in an atomic word of CDirk (relaxed: an agent that
/// a task made or inherited was counted before that task asks).
enum TaskAgentCount {
    /// Counts an agent made (`1`) or deinitialized (`-1`).
    static func add(_ delta: Int) { dirk_count_task_agents(delta) }

    /// Whether any task agent is alive: when none is, no task-local lookup is needed.
    static var anyAlive: Bool { dirk_task_agents_alive() }
}

/// The process's standard error, unbuffered, for a warning that must not stop the program.
enum StandardError {
    /// Writes `text`.
    static func write(_ text: String) { dirk_write_standard_error(text) }
}
