extension Component {
    /// Drops every instance this component's modules cached, so that the next call of each
    /// provider builds anew, for example at sign-out.
    ///
    /// The parents' caches are untouched, and so are instances that callers still hold. An
    /// instance being built on another thread while `reset()` runs finishes and is cached.
    /// Calling `reset()` from inside a provider or `configure:` closure of this component stops
    /// the program: the resolution would lose instances it is still using.
    public func reset() {
        for frame in ResolutionContext.current.frames {
            let slot = frame.takeUnretainedValue()
            if slot.componentID == ObjectIdentifier(self) {
                Diagnostics.resetDuringResolution(component: type(of: self), provider: slot.name)
            }
        }
        // Released here, after the lock: their deinitializers may run user code.
        let dropped = dropCachedInstances()
        _ = dropped
    }

    /// Empties every cell of every module in use and returns what they held.
    func dropCachedInstances() -> [AnyObject] {
        withStateLock { _ in modulesByType.allValues().flatMap { $0.resetSlots() } }
    }
}
