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
final class ResolutionContext: @unchecked Sendable {
    // `frames` and `scoped` belong to the context's own thread. Another thread reads `frames` only
    // to describe a cycle, after it has loaded `waitingFor` with acquiring ordering while this
    // thread sleeps, waiting. `waitingFor` is guarded by its own mutex.
    private(set) var frames: [Unmanaged<ProviderSlot>] = []
    private var scoped: [ObjectIdentifier: ScopedEntry] = [:]
    private let waiting = Locked<Construction?>.make(nil)

    /// The calling thread's context, created on first use and released when the thread exits.
    static var current: ResolutionContext {
        if let existing = pthread_getspecific(contextKey) {
            return Unmanaged<ResolutionContext>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = ResolutionContext()
        pthread_setspecific(contextKey, Unmanaged.passRetained(created).toOpaque())
        return created
    }

    /// Whether a provider call is under way on this thread.
    var isResolving: Bool { !frames.isEmpty }

    /// Enters `slot`'s provider. Pair every call with `leave()`.
    @inline(__always)
    func enter(_ slot: ProviderSlot) {
        frames.append(Unmanaged.passUnretained(slot))
    }

    /// Enters a provider that caches nothing, trapping if it is already on the stack.
    @inline(__always)
    func enterUncached(_ slot: ProviderSlot) {
        let reference = Unmanaged.passUnretained(slot)
        for frame in frames where frame.toOpaque() == reference.toOpaque() {
            Diagnostics.cycle(path: path(from: slot, closingWith: slot), at: slot)
        }
        frames.append(reference)
    }

    /// Leaves the provider entered last; when that was the outermost, drops the scoped instances.
    @inline(__always)
    func leave() {
        frames.removeLast()
        if frames.isEmpty && !scoped.isEmpty {
            endResolution()
        }
    }

    private func endResolution() {
        // Released outside any lock; their deinitializers may run user code.
        let finished = scoped
        scoped = [:]
        _ = finished
    }

    /// The names of the providers on the stack from `start`'s frame to the top, then `end`.
    func path(from start: ProviderSlot, closingWith end: ProviderSlot) -> [String] {
        let names = frames.map { $0.takeUnretainedValue().name }
        let first =
            frames.firstIndex { $0.toOpaque() == Unmanaged.passUnretained(start).toOpaque() }
            ?? names.endIndex
        return Array(names[first...]) + [end.name]
    }

    // MARK: Scoped instances

    /// The entry of `slot` in this resolution, if the slot made an instance in it.
    func scopedEntry(for slot: ProviderSlot) -> ScopedEntry? {
        scoped[ObjectIdentifier(slot)]
    }

    func setScopedEntry(_ entry: ScopedEntry?, for slot: ProviderSlot) {
        scoped[ObjectIdentifier(slot)] = entry
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
    var phase: Phase

    init(phase: Phase) {
        self.phase = phase
    }
}

/// The thread-specific key under which each thread keeps its `ResolutionContext`.
///
/// Created once per process and never changed; the destructor releases a thread's context when
/// the thread exits.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { pointer in
        #if canImport(Darwin)
            Unmanaged<ResolutionContext>.fromOpaque(pointer).release()
        #else
            if let pointer { Unmanaged<ResolutionContext>.fromOpaque(pointer).release() }
        #endif
    }
    precondition(created == 0, "Dirk: could not create the thread-specific key (\(created))")
    return key
}()
