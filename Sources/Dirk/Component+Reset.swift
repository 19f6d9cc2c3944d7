extension Component {
    /// Drops every instance this component's modules cached, so that the next call of each
    /// provider builds anew, for example at sign-out.
    ///
    /// The parents' caches are untouched, and so are instances that callers still hold. An
    /// instance being built on another thread while `reset()` runs finishes and is cached.
    /// Calling `reset()` from inside a provider or `configure:` closure of this component stops
    /// the program: the resolution would lose instances it is still using.
    /// - Parameters:
    ///   - file: Where `reset()` is called, for the message if it is called from a provider.
    ///   - line: The line of that call.
    public func reset(file: StaticString = #fileID, line: UInt = #line) {
        for frame in ResolutionContext.current.takeUnretainedValue().stack {
            if frame.belongs(to: self) {
                Diagnostics.resetDuringResolution(
                    component: type(of: self), provider: frame.name, file: file, line: line)
            }
        }
        // Released here, after the lock: their deinitializers may run user code.
        let dropped = withStateLock { $0.dropCachedInstances(componentReleased: false) }
        _ = dropped
    }
}
