/// One thread building one cached instance: the record other threads wait on.
///
/// Threads that need the instance sleep on the construction's own condition, so they wait for
/// that one instance and for nothing else. While a thread waits it publishes the construction in
/// its `ResolutionContext`. Following builder → awaited construction → its builder … either ends
/// at a thread that is making progress, or comes back to the caller: then the threads wait for
/// each other, a cycle that spans threads, which Dirk reports instead of hanging.
final class Construction: @unchecked Sendable {
    // `builder` and `slot` are immutable; `finished` is guarded by `lock`.
    let builder: ResolutionContext
    let slot: ProviderSlot
    private let lock = ConditionLock()
    private var finished = false

    init(builder: ResolutionContext, slot: ProviderSlot) {
        self.builder = builder
        self.slot = slot
    }

    /// Marks the construction finished, whether it succeeded or threw, and wakes its waiters.
    func finish() {
        lock.withLock {
            finished = true
            lock.broadcast()
        }
    }

    /// Sleeps until the construction finishes or `nanoseconds` pass; returns whether it finished.
    func wait(nanoseconds: Int) -> Bool {
        lock.withLock {
            if !finished { lock.wait(nanoseconds: nanoseconds) }
            return finished
        }
    }

    /// The chain of waits that starts at this construction and comes back to `context`, or nil
    /// when it ends at a thread that is making progress.
    func waitChain(returningTo context: ResolutionContext) -> [Construction]? {
        var chain = [self]
        var construction = self
        while construction.builder !== context {
            guard let next = construction.builder.waitingFor, chain.count < 10_000 else { return nil }
            chain.append(next)
            construction = next
        }
        return chain
    }

    /// The provider path of a cycle across threads: each builder's stack from the instance the
    /// previous thread waits for, closing with the instance the path began with.
    static func path(of chain: [Construction], waitedForBy context: ResolutionContext) -> [String] {
        // The caller's own stack starts at the instance that the last thread in the chain waits for.
        var names: [String] = []
        var start = chain[chain.count - 1].slot
        var stackOwner = context
        for construction in chain {
            names += stackOwner.path(from: start, closingWith: construction.slot).dropLast()
            start = construction.slot
            stackOwner = construction.builder
        }
        return names + [chain[chain.count - 1].slot.name]
    }
}
