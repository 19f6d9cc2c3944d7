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
        let dropped = dropCachedInstances()
        _ = dropped
    }

    /// Empties every cell of every module and returns what they held, once no lock-free reader
    /// can still be reading it.
    func dropCachedInstances() -> [Any] {
        withStateLock { state in
            var dropped: [Any] = []
            var module = state.firstAttached
            while let current = module {
                current.resetSlots(into: &dropped)
                module = current.nextAttached
            }
            if !dropped.isEmpty { state.readGuard?.waitForReaders() }
            return dropped
        }
    }
}
