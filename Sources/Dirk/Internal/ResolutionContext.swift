import DirkThreadLocal

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One thread's resolution in progress: the stack of providers it is inside, the instances of
/// `scoped` providers it has made, and the construction it is waiting for, if any.
///
/// A resolution begins when a thread calls a provider while inside none, and ends when that
/// outermost call returns; `scoped` instances live exactly that long.
@usableFromInline
final class ResolutionContext: @unchecked Sendable {
    // The stack and `scoped` belong to the context's own thread. Another thread reads the stack
    // only to describe a cycle, after it has read `waitingFor` under `waiting`'s lock while this
    // thread sleeps, waiting. `waitingFor` is guarded by `waiting`.
    // Only the owning thread writes these, so Swift's run-time exclusivity checks, which cost
    // more than the accesses themselves, are turned off for them.
    @exclusivity(unchecked) @usableFromInline var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) @usableFromInline var depth = 0
    @exclusivity(unchecked) @usableFromInline var capacity = 32
    /// How many frames on the stack fall in each of `Frame.bucketCount` buckets, so that a
    /// provider that caches nothing looks for itself on the stack only when its bucket is taken.
    @usableFromInline let framesPerBucket: UnsafeMutablePointer<UInt32>
    /// Whether the outermost `leave()` has work to do: held components to release, or the
    /// pending work below. One flag, so that `leave()` checks a single byte.
    @exclusivity(unchecked) @usableFromInline var hasResolutionState = false
    /// Whether the outermost `leave()` has more to do than release the held components: scoped
    /// instances, borrowed instances or publications.
    @exclusivity(unchecked) var hasPendingWork = false
    /// Components this resolution keeps alive until it ends, each retained once, so that a
    /// provider call into a component already held costs no reference counting.
    @exclusivity(unchecked) @usableFromInline var held: UnsafeMutablePointer<Unmanaged<Component>>
    @exclusivity(unchecked) @usableFromInline var heldCount = 0
    @exclusivity(unchecked) @usableFromInline var heldCapacity = 8
    @exclusivity(unchecked) private var scoped: [ObjectIdentifier: ScopedEntry] = [:]
    @exclusivity(unchecked) private var borrowed: [Construction] = []
    @exclusivity(unchecked) private var publications: [() -> Void] = []
    /// The module that `fresh(_:)` asked for fresh instances, and the depth of its providers.
    @exclusivity(unchecked) var freshRequest: FreshRequest?
    /// The lines of the trace under way on this thread, if any.
    @exclusivity(unchecked) var traceLines: [String]?
    /// The module that `Component.firstUse` is creating on this thread, which it attaches to its
    /// component when it publishes it, under the same lock: the module's initializer skips
    /// attaching it.
    @exclusivity(unchecked) var attachedOnPublish:
        (component: UnsafeMutableRawPointer, type: ObjectIdentifier)?
    /// How many `configure:` closures are running on this thread.
    @exclusivity(unchecked) var configurationDepth = 0

    /// Whether a `configure:` closure is running on this thread.
    var isConfiguring: Bool { configurationDepth > 0 }
    private let waiting = Locked<Construction?>.make(nil)

    private init() {
        frames = .allocate(capacity: capacity)
        held = .allocate(capacity: heldCapacity)
        framesPerBucket = .allocate(capacity: Frame.bucketCount)
        framesPerBucket.initialize(repeating: 0, count: Frame.bucketCount)
    }

    deinit {
        framesPerBucket.deallocate()
        held.deallocate()
        frames.deinitialize(count: depth)
        frames.deallocate()
    }

    /// The calling thread's context, created on first use and released when the thread exits.
    ///
    /// One load from a C thread-local variable; the thread-specific key only lets the thread's
    /// exit release the context.
    @inlinable @inline(__always)
    static var current: Unmanaged<ResolutionContext> {
        if let existing = dirk_get_thread_context() {
            return Unmanaged<ResolutionContext>.fromOpaque(existing)
        }
        return makeCurrent()
    }

    @usableFromInline
    static func makeCurrent() -> Unmanaged<ResolutionContext> {
        let created = Unmanaged.passRetained(ResolutionContext())
        pthread_setspecific(contextKey, created.toOpaque())
        dirk_set_thread_context(created.toOpaque())
        return created
    }

    /// The providers on the stack, outermost first.
    var stack: [Frame] {
        (0..<depth).map { frames[$0] }
    }

    /// Enters the provider of `frame`. Pair every call with `leave()`.
    @inlinable @inline(__always)
    func enter(_ frame: Frame) {
        if depth == capacity { grow() }
        (frames + depth).initialize(to: frame)
        depth &+= 1
        framesPerBucket[Int(frame.bucket)] &+= 1
    }

    /// Enters a provider that caches nothing, trapping if it is already on the stack: such a
    /// provider can only be there again by requiring itself.
    ///
    /// The stack is searched only when a frame in the same bucket is on it, which in a graph
    /// without cycles is seldom.
    @inlinable @inline(__always)
    func enterUncached(_ frame: Frame) {
        if framesPerBucket[Int(frame.bucket)] != 0 { checkRecursion(at: frame) }
        enter(frame)
    }

    /// Traps if `frame`'s provider is already on the stack.
    @usableFromInline
    func checkRecursion(at frame: Frame) {
        for index in 0..<depth where frames[index].isSame(as: frame) {
            reportCycle(at: frame)
        }
    }

    /// Leaves the provider entered last; when that was the outermost, drops the scoped instances.
    @inlinable @inline(__always)
    func leave() {
        depth &-= 1
        framesPerBucket[Int(frames[depth].bucket)] &-= 1
        (frames + depth).deinitialize(count: 1)
        if depth == 0 && hasResolutionState { endResolution() }
    }

    @usableFromInline
    func grow() {
        let larger = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: frames, count: depth)
        frames.deallocate()
        frames = larger
        capacity *= 2
    }

    @usableFromInline
    func reportCycle(at frame: Frame) -> Never {
        Diagnostics.recursion(path: path(from: frame, closingWith: frame), at: frame)
    }

    /// Whether this resolution holds `component`.
    @inlinable @inline(__always)
    func holds(_ component: UnsafeMutableRawPointer) -> Bool {
        var index = 0
        while index < heldCount {
            if held[index].toOpaque() == component { return true }
            index &+= 1
        }
        return false
    }

    /// Keeps `component` alive until the resolution ends, taking over one reference to it.
    @usableFromInline
    func hold(_ component: Unmanaged<Component>) {
        if heldCount == heldCapacity {
            let larger = UnsafeMutablePointer<Unmanaged<Component>>.allocate(capacity: heldCapacity * 2)
            larger.moveInitialize(from: held, count: heldCount)
            held.deallocate()
            held = larger
            heldCapacity *= 2
        }
        (held + heldCount).initialize(to: component)
        heldCount &+= 1
        hasResolutionState = true
    }

    @usableFromInline @inline(never)
    func endResolution() {
        hasResolutionState = false
        if hasPendingWork { finishPendingWork() }
        // One at a time from the top: a deinitializer that resolves again pushes and pops above.
        while heldCount > 0 {
            heldCount &-= 1
            held[heldCount].release()
        }
    }

    /// Publishes, waits for and drops what the resolution left besides its held components.
    private func finishPendingWork() {
        hasPendingWork = false
        // First what this resolution built while configuring, so that other threads waiting for
        // it can finish; then an instance taken from another thread while it was being
        // configured is handed to the caller only once its configuration is over.
        if !publications.isEmpty {
            let ready = publications
            publications = []
            for publish in ready { publish() }
        }
        for construction in borrowed {
            while !construction.wait(nanoseconds: 20_000_000) {}
        }
        // Released here, outside any lock: their deinitializers may run user code, including
        // new resolutions on this thread.
        if !scoped.isEmpty || !borrowed.isEmpty {
            let finished = (scoped, borrowed)
            scoped = [:]
            borrowed = []
            _ = finished
        }
    }

    /// Runs `publish` when the outermost call returns.
    func publishWhenResolutionEnds(_ publish: @escaping () -> Void) {
        publications.append(publish)
        hasPendingWork = true
        hasResolutionState = true
    }

    /// Records that this resolution took `construction`'s instance while it was being configured.
    func borrow(from construction: Construction) {
        borrowed.append(construction)
        hasPendingWork = true
        hasResolutionState = true
    }

    /// The names of the providers on the stack from `start` to the top, then `end`.
    func path(from start: Frame, closingWith end: Frame) -> [String] {
        let frames = stack
        let first = frames.firstIndex { $0.isSame(as: start) } ?? frames.endIndex
        return frames[first...].map(\.name) + [end.name]
    }

    // MARK: Scoped instances

    /// The entry of `slot` in this resolution, if the slot made an instance in it.
    func scopedEntry(for slot: ProviderSlot) -> ScopedEntry? {
        guard let entry = scoped[ObjectIdentifier(slot)], entry.slot === slot else { return nil }
        return entry
    }

    /// Records `entry` for its slot, which it keeps alive until the resolution ends, so that no
    /// other slot can take the same address meanwhile.
    func setScopedEntry(_ entry: ScopedEntry) {
        scoped[ObjectIdentifier(entry.slot)] = entry
        hasPendingWork = true
        hasResolutionState = true
    }

    func removeScopedEntry(for slot: ProviderSlot) {
        scoped[ObjectIdentifier(slot)] = nil
    }

    // MARK: Waiting

    /// The construction this thread waits for, read by other threads looking for a deadlock.
    var waitingFor: Construction? {
        get { waiting.withLock { $0 } }
        set { waiting.withLock { $0 = newValue } }
    }
}

/// The state of one `scoped` provider within one resolution.
final class ScopedEntry {
    enum Phase {
        case building
        case configuring(AnyObject)
        case ready(AnyObject)
    }
    let slot: ProviderSlot
    var phase = Phase.building

    init(slot: ProviderSlot) {
        self.slot = slot
    }
}

/// The thread-specific key under which each thread keeps its `ResolutionContext`.
///
/// Created once per process and never changed; the destructor releases a thread's context when
/// the thread exits.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { pointer in
        // Cleared first: a destructor that runs later on this thread and resolves again makes a
        // new context, which this key releases in turn.
        dirk_set_thread_context(nil)
        #if canImport(Darwin)
            Unmanaged<ResolutionContext>.fromOpaque(pointer).release()
        #else
            if let pointer { Unmanaged<ResolutionContext>.fromOpaque(pointer).release() }
        #endif
    }
    precondition(created == 0, "Dirk: could not create the thread-specific key (\(created))")
    return key
}()

/// A `fresh(_:)` call under way: the module whose cached providers build anew, and the stack depth
/// at which they are called.
struct FreshRequest {
    let module: UnsafeMutableRawPointer
    let depth: Int
}
