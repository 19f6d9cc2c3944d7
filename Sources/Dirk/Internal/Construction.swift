/// One thread building one cached instance or module: the record other threads wait on, made by
/// the first of them.
///
/// Threads that need the instance sleep on the construction's own condition, with the component's
/// lock, so they wait for that one instance and for nothing else. While a thread waits it publishes
/// the construction in its `ResolutionContext`. Following builder → awaited construction → its
/// builder … either ends at a thread that is making progress, or comes back to the caller: then
/// the threads wait for each other, a cycle that spans threads, which Dirk breaks or reports
/// instead of hanging.
final class Construction: @unchecked Sendable {
    // `builder`, `frame` and `lock` are immutable; `finished` and `configuring` are guarded by
    // `lock`, the lock of the component the instance belongs to.
    let builder: ResolutionContext
    /// What is being built.
    let frame: Frame
    private let lock: Locked<ComponentState>
    /// What the waiting threads sleep on, with `lock` held.
    private let condition = Condition()
    private var finished = false
    private var configuring = false

    /// A construction that `builder` began, with `lock`, the component's lock, held.
    private init(
        builder: ResolutionContext, frame: Frame, lock: Locked<ComponentState>, configuring: Bool
    ) {
        self.builder = builder
        self.frame = frame
        self.lock = lock
        self.configuring = configuring
    }

    /// The construction in `slot`, or a new one that `builder` began, stored there: the first
    /// thread to wait makes it, so a build nobody waits for allocates none. Call it while holding
    /// `lock`.
    static func waitedOn(
        in slot: inout Construction?, builder: ResolutionContext, frame: Frame,
        lock: Locked<ComponentState>, configuring: Bool
    ) -> Construction {
        if let slot { return slot }
        let made = Construction(builder: builder, frame: frame, lock: lock, configuring: configuring)
        slot = made
        return made
    }

    /// Records that the instance exists and its `configure:` closure runs. Call it while holding
    /// the lock.
    func markConfiguringLocked() {
        configuring = true
    }

    /// Marks the construction finished, whether it succeeded or threw, and wakes its waiters. Call
    /// it while holding the lock.
    func finishLocked() {
        finished = true
        condition.broadcast()
    }

    private var state: (finished: Bool, configuring: Bool) {
        lock.withLock { _ in (finished, configuring) }
    }

    /// Wakes the threads waiting for the construction, without finishing it, so that they look
    /// for a deadlock again.
    func wakeWaiters() {
        lock.withLock { _ in condition.broadcast() }
    }

    /// Sleeps until the construction finishes or `nanoseconds` pass, or it is woken; returns
    /// whether it finished.
    func wait(nanoseconds: Int) -> Bool {
        lock.withLock { _ in
            if !finished { lock.wait(on: condition, nanoseconds: nanoseconds) }
            return finished
        }
    }

    /// What the threads waiting in a closed chain of waits can do about it.
    enum Deadlock {
        /// The caller waits for an instance that is being configured: it may take it as it is,
        /// as the builder's own thread would.
        case takeConfiguringValue
        /// Another thread in the chain waits for this instance, which is being configured, and
        /// will take it once woken.
        case otherThreadBreaksIt(waitingFor: Construction)
        /// Every thread waits for an instance still under construction: a cycle across threads.
        case cycle([Construction])
    }

    /// The deadlock that waiting for this construction would complete, or nil when the chain of
    /// waits ends at a thread that is making progress.
    ///
    /// Every construction is checked to be unfinished after its builder's wait was read, so a
    /// thread that finished it and went on to wait elsewhere never makes a chain look closed; a
    /// closed chain of unfinished constructions is stable, since each of their builders sleeps.
    func deadlock(waitedForBy context: ResolutionContext) -> Deadlock? {
        var chain: [Construction] = []
        var configuring: [Bool] = []
        var construction = self
        var state = construction.state
        while true {
            if state.finished { return nil }
            chain.append(construction)
            configuring.append(state.configuring)
            if construction.builder === context { break }
            guard let next = construction.builder.waitingFor, chain.count < 10_000 else { return nil }
            // The builder may have finished this construction and gone on to wait for another since
            // the check above; the link holds only if this one is still unfinished after the read.
            guard !construction.state.finished else { return nil }
            construction = next
            state = construction.state
        }
        // A second look must find the same chain: each flag only ever turns one way, so an
        // unchanged chain was closed all along, and not the picture of threads that moved on.
        for (index, link) in chain.enumerated() {
            let now = link.state
            guard !now.finished, now.configuring == configuring[index] else { return nil }
            if index + 1 < chain.count, link.builder.waitingFor !== chain[index + 1] { return nil }
        }
        // Each thread in the chain waits for the next construction; one whose instance exists
        // already can take it and end the wait.
        if configuring[0] { return .takeConfiguringValue }
        if let index = configuring.firstIndex(of: true) {
            return .otherThreadBreaksIt(waitingFor: chain[index])
        }
        return .cycle(chain)
    }

    /// The provider path of a cycle across threads: each builder's stack from the instance the
    /// previous thread waits for, closing with the instance the path began with.
    static func path(of chain: [Construction], waitedForBy context: ResolutionContext) -> [String] {
        // The caller's own stack starts at the instance that the last thread in the chain waits for.
        var names: [String] = []
        var start = chain[chain.count - 1].frame
        var stackOwner = context
        for construction in chain {
            names += stackOwner.path(from: start, closingWith: construction.frame).dropLast()
            start = construction.frame
            stackOwner = construction.builder
        }
        return names + [chain[chain.count - 1].frame.name]
    }

    /// Sleeps until the construction finishes, breaking or reporting a deadlock among waiting
    /// threads; returns a value to use at once, or nil to look at the instance's state again.
    ///
    /// - Parameters:
    ///   - configuringValue: The instance, when the waiter found it being configured.
    ///   - context: The waiting thread's resolution.
    func awaitBuilder(configuringValue: AnyObject?, context: ResolutionContext) -> AnyObject? {
        context.waitingFor = self
        defer { context.waitingFor = nil }
        while true {
            switch deadlock(waitedForBy: context) {
            case .takeConfiguringValue:
                // As on the builder's own thread, the instance is complete enough to hand over;
                // this thread's outermost call waits for its configuration before returning.
                // A thread that began waiting before the instance existed looks again.
                guard let configuringValue else { return nil }
                context.borrow(from: self)
                return configuringValue
            case .cycle(let chain):
                Diagnostics.cycleAcrossThreads(
                    path: Construction.path(of: chain, waitedForBy: context), at: frame)
            case .otherThreadBreaksIt(let construction):
                construction.wakeWaiters()
            case nil:
                break
            }
            if wait(nanoseconds: 20_000_000) { return nil }
        }
    }
}
