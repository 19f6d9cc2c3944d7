extension Component {
    /// Drops every instance and key this component's modules cached, so that the next call of each
    /// provider builds anew, for example at sign-out.
    ///
    /// The parents' caches are untouched, and so are instances that callers still hold. An
    /// instance being built while `reset()` runs finishes and is cached. The dropped instances and
    /// keys are released before `reset()` returns, with no lock held, so their deinitializers may
    /// use the component. An instance built with a `close:` action is not closed, since `reset()`
    /// cannot wait for a close: the component keeps it open until ``shutdown(file:line:)`` closes
    /// it with the others. Calling `reset()` from inside a provider or `configure:` closure of this
    /// component, synchronous or async, stops the program: the resolution would lose instances it
    /// is still using. So does calling it in a resolution that got an instance of this component
    /// which it publishes only when it ends (one built while a `configure:` closure of any
    /// component runs on the thread), and calling it from a task that an async factory of this component
    /// started (`async let`, a task group, or `Task { }`) while that factory runs; once the factory
    /// has returned, such a task may reset the component. A `Task.detached` inherits nothing from
    /// the factory that started it, Dirk's task-local values included, so Dirk cannot tell that
    /// such a task came from a factory, and its `reset()` does not trap: do not reset from one.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    public func reset(file: StaticString = #fileID, line: UInt = #line) {
        checkNoStepUnderWay("reset()", file: file, line: line)
        // Released after the lock: deinitializers may run user code, even use the component.
        var dropped: [Any] = []
        storage.withLock { $0.table.reset(into: &dropped) }
        withExtendedLifetime(dropped) {}
    }
}
