import Synchronization

/// A cached instance built at most once at a time, the caching core of `single`, `weak`,
/// `single(key:)` and default modules.
///
/// A cell moves `empty → building → (configuring →) ready`, back to `empty` when the factory or
/// `configure` throws, and from `ready` to `empty` on `reset()` or, for weak cells, when the
/// instance is gone. The first thread to find it empty builds, with no lock held; threads that
/// find it building sleep on that `Construction` until it finishes, then look again. The thread
/// that builds may see its own instance while it is configuring, which is how `configure:`
/// closures reach each other.
///
/// Strong cells publish a `Snapshot` that readers load without a lock (`cachedHolder`); weak cells
/// are read under the component's lock.
final class OnceCell: @unchecked Sendable {
    enum Retention {
        /// The cell owns the instance until `reset()`: `single`, `single(key:)`, modules.
        case strong
        /// The cell refers to the instance weakly: the `weak` strategy.
        case weak
    }

    private enum Phase {
        case empty
        case building(Construction)
        case configuring(Construction, AnyObject)
        case ready
    }

    let retention: Retention
    // `published` is read without a lock. Every other field is guarded by the lock of the
    // component that owns the cell (`Component.state`).
    private let published = Atomic<Unmanaged<Snapshot>?>(nil)
    private var phase = Phase.empty
    private var strongValue: AnyObject?
    private weak var weakValue: AnyObject?
    private var retired: [Snapshot] = []

    init(retention: Retention) {
        self.retention = retention
    }

    deinit {
        published.load(ordering: .acquiring)?.release()
    }

    /// The cached holder, without a lock; nil when the cell is not ready or holds a weak value.
    @inline(__always)
    var cachedHolder: AnyObject? {
        guard let snapshot = published.load(ordering: .acquiring) else { return nil }
        return snapshot._withUnsafeGuaranteedRef { $0.holder }
    }

    /// The cached value, or the value built by `make` and configured by `configure`.
    ///
    /// - Parameters:
    ///   - slot: The provider the cell belongs to, for the resolution stack and messages.
    ///   - component: The component whose lock guards the cell.
    ///   - make: Builds the value to cache: a `Holder` for strong cells, the instance for weak ones.
    ///   - configures: Whether to run `configure`.
    ///   - configure: Runs once on a new value, after it is visible to this thread.
    func resolve(
        slot: ProviderSlot,
        in component: Component,
        make: () throws -> AnyObject,
        configures: Bool,
        configure: (AnyObject) throws -> Void
    ) rethrows -> AnyObject {
        let context = ResolutionContext.current
        while true {
            switch component.withStateLock({ _ in claim(for: context, slot: slot) }) {
            case .found(let value):
                return value
            case .wait(let construction, let configuringValue):
                if let value = waitFor(construction, configuringValue: configuringValue, context: context) {
                    return value
                }
            case .build(let construction):
                return try build(
                    construction, in: component, context: context, make: make,
                    configures: configures, configure: configure)
            }
        }
    }

    /// Drops the cached value; returns it so that the caller releases it outside the lock.
    /// Call it while holding the component's lock. A cell being built is left to finish.
    func reset() -> AnyObject? {
        guard case .ready = phase else { return nil }
        if let snapshot = published.exchange(nil, ordering: .acquiringAndReleasing) {
            // A reader may still hold the snapshot's address; it stays valid until the cell goes.
            retired.append(snapshot.takeRetainedValue())
        }
        let dropped = strongValue
        strongValue = nil
        weakValue = nil
        phase = .empty
        return dropped
    }

    // MARK: Steps, each taken under the component's lock

    private enum Step {
        case found(AnyObject)
        case wait(Construction, configuringValue: AnyObject?)
        case build(Construction)
    }

    private func claim(for context: ResolutionContext, slot: ProviderSlot) -> Step {
        switch phase {
        case .ready:
            if let value = strongValue ?? weakValue { return .found(value) }
            fallthrough
        case .empty:
            let construction = Construction(builder: context, slot: slot)
            phase = .building(construction)
            return .build(construction)
        case .building(let construction):
            if construction.builder === context {
                Diagnostics.cycle(path: context.path(from: slot, closingWith: slot), at: slot)
            }
            return .wait(construction, configuringValue: nil)
        case .configuring(let construction, let value):
            if construction.builder === context { return .found(value) }
            return .wait(construction, configuringValue: value)
        }
    }

    private func settle(_ newPhase: Phase, value: AnyObject?) {
        phase = newPhase
        guard case .ready = newPhase, let value else { return }
        switch retention {
        case .strong:
            strongValue = value
            let snapshot = Unmanaged.passRetained(Snapshot(holder: value))
            if let stale = published.exchange(snapshot, ordering: .acquiringAndReleasing) {
                retired.append(stale.takeRetainedValue())
            }
        case .weak:
            weakValue = value
        }
    }

    // MARK: Building and waiting, with no lock held

    private func build(
        _ construction: Construction,
        in component: Component,
        context: ResolutionContext,
        make: () throws -> AnyObject,
        configures: Bool,
        configure: (AnyObject) throws -> Void
    ) rethrows -> AnyObject {
        context.enter(construction.slot)
        defer {
            context.leave()
            construction.finish()
        }
        do {
            let value = try make()
            if configures {
                component.withStateLock { _ in settle(.configuring(construction, value), value: nil) }
                try configure(value)
            }
            component.withStateLock { _ in settle(.ready, value: value) }
            return value
        } catch {
            component.withStateLock { _ in settle(.empty, value: nil) }
            throw error
        }
    }

    /// Waits for `construction`; returns a value to use at once, or nil to look at the cell again.
    private func waitFor(
        _ construction: Construction, configuringValue: AnyObject?, context: ResolutionContext
    ) -> AnyObject? {
        context.waitingFor = construction
        defer { context.waitingFor = nil }
        while true {
            if let chain = construction.waitChain(returningTo: context) {
                // The builders wait for each other. If this instance is only being configured, it
                // is complete enough to hand over, as on a single thread; otherwise no thread can
                // ever finish.
                if let configuringValue { return configuringValue }
                Diagnostics.cycleAcrossThreads(
                    path: Construction.path(of: chain, waitedForBy: context), at: construction.slot)
            }
            if construction.wait(nanoseconds: 20_000_000) { return nil }
        }
    }
}

/// Owns one cached value of any type, so that cells store every value as an object.
final class Holder<Value> {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// What lock-free readers of a strong cell load.
///
/// It refers to the holder weakly, so `reset()` releases the value at once even while a reader
/// that loaded the snapshot just before is still running: that reader then finds nil and takes the
/// slow path. A snapshot is immutable and lives until its cell is released.
final class Snapshot {
    weak let holder: AnyObject?

    init(holder: AnyObject) {
        self.holder = holder
    }
}
