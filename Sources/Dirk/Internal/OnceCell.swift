import Synchronization

/// A cached instance built at most once at a time: the caching core of `single`, `weak` and
/// `single(key:)`.
///
/// A cell moves `empty → building → (configuring →) ready`, back to `empty` when the factory or
/// `configure` throws, and from `ready` to `empty` on `reset()` or, for weak cells, when the
/// instance is gone. The first thread to find it empty builds, with no lock held; threads that
/// find it building sleep on a `Construction`, which the first of them makes, until it finishes,
/// then look again. The thread that builds sees its own instance while it is configuring, which is
/// how `configure:` closures reach each other.
///
/// Strong cells publish their instance for readers that take no lock (`cachedValue(as:)`), under
/// the component's `ReadGuard`; weak cells are read under the component's lock.
@usableFromInline
final class OnceCell: @unchecked Sendable {
    @usableFromInline
    enum Retention {
        /// The cell owns the instance until `reset()`: `single`, `single(key:)`, modules.
        case strong
        /// The cell refers to the instance weakly: the `weak` strategy.
        case weak
    }

    private enum Phase {
        case empty
        case building
        case configuring
        case ready
    }

    let retention: Retention
    /// Whether the cached object is the instance itself (a class instance) rather than a `Holder`.
    @usableFromInline
    let isInstance: Bool
    /// The guard of the component's lock-free readers; nil for cells that are never read that way.
    let readers: ReadGuard?
    /// The slots of `readers`, which the cell keeps alive, for readers that must not touch a
    /// reference count or load `readers` first.
    @usableFromInline
    let readerSlots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>?
    // `published` holds a reference to the ready object of a strong cell, read without a lock
    // under `readers`. Every other variable is guarded by the lock of the component that owns the
    // cell (`Component.state`).
    @usableFromInline
    let published = Atomic<Unmanaged<AnyObject>?>(nil)
    private var phase = Phase.empty
    /// The thread building or configuring the instance. Unretained: the thread clears it before
    /// its build returns, and its context lives as long as the thread.
    private var builder: Unmanaged<ResolutionContext>?
    /// What the threads waiting for the instance sleep on, made by the first of them, so that a
    /// build nobody waits for allocates none.
    private var construction: Construction?
    /// The instance while it is being configured.
    private var configuringValue: AnyObject?
    private var strongValue: AnyObject?
    private weak var weakValue: AnyObject?

    init(retention: Retention, isInstance: Bool, readers: ReadGuard?) {
        self.retention = retention
        self.isInstance = isInstance
        self.readers = readers
        readerSlots = readers?.slots
    }

    deinit {
        published.load(ordering: .acquiring)?.release()
    }

    /// The cached value, read without a lock, or nil when the cell is not ready.
    @inlinable @inline(__always)
    func cachedValue<T>(as type: T.Type) -> T? {
        guard let object = cachedObject() else { return nil }
        return isInstance
            ? unsafeBitCast(object, to: T.self) : unsafeDowncast(object, to: Holder<T>.self).value
    }

    /// The cached object, retained, read without a lock: the instance itself when `isInstance`,
    /// else a `Holder`; nil when the cell is not ready.
    @inlinable @inline(__always)
    func cachedObject() -> AnyObject? {
        guard let readerSlots else { return nil }
        return ReadGuard.read(published, slots: readerSlots)
    }

    /// The cached object, or the object built by `make` and configured by `configure`.
    ///
    /// - Parameters:
    ///   - frame: The provider the cell belongs to, for the resolution stack and messages.
    ///   - component: The component whose lock guards the cell.
    ///   - make: Builds the object to cache: the instance itself when `isInstance`, else a `Holder`.
    ///   - configures: Whether to run `configure`.
    ///   - configure: Runs once on a new object, after it is visible to this thread.
    func resolve(
        frame: Frame,
        in component: Component,
        make: () throws -> AnyObject,
        configures: Bool,
        configure: (AnyObject) throws -> Void
    ) rethrows -> AnyObject {
        let context = ResolutionContext.current.takeUnretainedValue()
        while true {
            switch component.withStateLock({ _ in claim(for: context, frame: frame, lock: component.state) })
            {
            case .found(let value):
                return value
            case .wait(let construction, let configuringValue):
                if let value = construction.awaitBuilder(configuringValue: configuringValue, context: context)
                {
                    return value
                }
            case .build:
                return try build(
                    frame, in: component, context: context, make: make, configures: configures,
                    configure: configure)
            }
        }
    }

    /// Drops the cached value and unpublishes it; returns it so that the caller releases it
    /// outside the lock, after `ReadGuard.waitUntilUnread(_:)`. Call it while holding the component's
    /// lock. A cell being built is left to finish.
    func reset() -> AnyObject? {
        guard case .ready = phase else { return nil }
        // The published reference is released here; `strongValue`'s, by the caller.
        if let object = published.exchange(nil, ordering: .sequentiallyConsistent) {
            object.release()
        }
        let dropped = strongValue
        strongValue = nil
        weakValue = nil
        phase = .empty
        return dropped
    }

    /// Whether the cell holds a value now. Call it while holding the component's lock.
    var hasValue: Bool {
        guard case .ready = phase else { return false }
        return strongValue != nil || weakValue != nil
    }

    // MARK: Steps, each taken under the component's lock

    private enum Step {
        case found(AnyObject)
        case wait(Construction, configuringValue: AnyObject?)
        case build
    }

    private func claim(
        for context: ResolutionContext, frame: Frame, lock: Locked<ComponentState>
    ) -> Step {
        switch phase {
        case .ready:
            if let value = strongValue ?? weakValue { return .found(value) }
            fallthrough
        case .empty:
            phase = .building
            builder = .passUnretained(context)
            return .build
        case .building:
            if builder?.toOpaque() == Unmanaged.passUnretained(context).toOpaque() {
                Diagnostics.cycle(path: context.path(from: frame, closingWith: frame), at: frame)
            }
            return .wait(waitedConstruction(frame: frame, lock: lock), configuringValue: nil)
        case .configuring:
            if builder?.toOpaque() == Unmanaged.passUnretained(context).toOpaque() {
                return .found(configuringValue.unsafelyUnwrapped)
            }
            return .wait(waitedConstruction(frame: frame, lock: lock), configuringValue: configuringValue)
        }
    }

    /// The construction that threads waiting for the instance sleep on, made by the first of them.
    /// `frame` is the waiter's, which names the same provider as the builder's.
    private func waitedConstruction(frame: Frame, lock: Locked<ComponentState>) -> Construction {
        Construction.waitedOn(
            in: &construction, builder: builder.unsafelyUnwrapped.takeUnretainedValue(), frame: frame,
            lock: lock, configuring: phase == .configuring)
    }

    /// Moves from building to configuring `value`, which this thread's later calls then get.
    private func markConfiguring(_ value: AnyObject) {
        guard phase == .building else { return }
        phase = .configuring
        configuringValue = value
        construction?.markConfiguringLocked()
    }

    /// What a settled build leaves for the caller to release outside the lock.
    private typealias Leftovers = (value: AnyObject?, construction: Construction?)

    /// Ends the build, moving to ready with `value` published, or back to empty; wakes the threads
    /// waiting for it. Returns the references the caller releases outside the lock.
    private func settle(ready value: AnyObject?) -> Leftovers {
        let leftovers = (configuringValue, construction)
        construction?.finishLocked()
        construction = nil
        configuringValue = nil
        builder = nil
        guard let value else {
            phase = .empty
            return leftovers
        }
        phase = .ready
        switch retention {
        case .strong:
            strongValue = value
            if readers != nil {
                published.store(.passRetained(value), ordering: .sequentiallyConsistent)
            }
        case .weak:
            weakValue = value
        }
        return leftovers
    }

    // MARK: Building and waiting, with no lock held

    private func build(
        _ frame: Frame,
        in component: Component,
        context: ResolutionContext,
        make: () throws -> AnyObject,
        configures: Bool,
        configure: (AnyObject) throws -> Void
    ) rethrows -> AnyObject {
        context.enter(frame)
        // Settled before leaving: an outermost `leave()` may wait for constructions to finish.
        defer { context.leave() }
        do {
            let value = try make()
            if configures || context.isConfiguring {
                component.withStateLock { _ in markConfiguring(value) }
            }
            if configures {
                context.configurationDepth += 1
                defer { context.configurationDepth -= 1 }
                try configure(value)
            }
            if context.isConfiguring {
                // A `configure:` closure of an enclosing provider is still running on this thread,
                // and this instance may already refer to its half-configured instance. Other threads
                // get it, as a single thread would, once the outermost call returns.
                context.publishWhenResolutionEnds {
                    let left = component.withStateLock { _ in self.settle(ready: value) }
                    _ = left
                }
                return value
            }
            let left = component.withStateLock { _ in settle(ready: value) }
            _ = left
            return value
        } catch {
            // Released after the lock: the abandoned instance's deinitializer may run user code.
            let abandoned = component.withStateLock { _ in settle(ready: nil) }
            _ = abandoned
            throw error
        }
    }
}

/// Owns one cached value that is not a class instance, so that cells store every value as an
/// object.
@usableFromInline
final class Holder<Value> {
    @usableFromInline let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
