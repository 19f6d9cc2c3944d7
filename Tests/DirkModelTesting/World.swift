import Dirk
import Foundation

/// The error a factory throws when the model injects a fault.
public struct ModelFault: Error, Sendable {
    let number: Int
}

/// One instance that a provider of the program built: which provider of which component, its serial
/// (unique in a run), the operation whose resolution built it, and the instances its factory got.
final class Node: @unchecked Sendable {
    // Every `let` is set before the node leaves its factory; the `var`s are guarded by `lock`.
    let component: Int
    let provider: Int
    let key: Int
    let strategy: ModelStrategy
    let serial: Int
    /// The operation whose resolution ran the factory; 0 for the set-up of an override.
    let operation: Int
    let dependencies: [Node]
    /// When the factory began and returned, on the run's clock.
    let started: Int
    let finished: Int
    /// Whether an override's factory built it.
    let overridden: Bool
    let closes: Bool
    /// Whether its provider has a `configure:` closure, which must have run before anyone but its
    /// builder sees it.
    let configures: Bool
    /// Its component's reset count before its factory began and when it returned.
    let epochs: (started: Int, finished: Int)
    /// The run's shared state, which its close action reports to.
    let world: ModelWorld?
    private let lock = NSLock()
    private var _configured = false
    private var _configureFailed = false
    private var _peerSerial: Int?

    init(
        component: Int, provider: Int, key: Int, strategy: ModelStrategy, serial: Int, operation: Int,
        dependencies: [Node], started: Int, finished: Int, overridden: Bool, closes: Bool, configures: Bool,
        epochs: (Int, Int), world: ModelWorld
    ) {
        (self.component, self.provider, self.key, self.strategy, self.serial) = (
            component, provider, key, strategy, serial
        )
        (self.operation, self.dependencies, self.started, self.finished) = (
            operation, dependencies, started, finished
        )
        (self.overridden, self.closes, self.configures, self.epochs, self.world) = (
            overridden, closes, configures, epochs, world
        )
    }

    var configured: Bool { lock.withLock { _configured } }
    var configureFailed: Bool { lock.withLock { _configureFailed } }
    var peerSerial: Int? { lock.withLock { _peerSerial } }

    func markConfigured(peer: Node?) {
        lock.withLock {
            _configured = true
            _peerSerial = peer?.serial
        }
    }

    func markConfigureFailed() { lock.withLock { _configureFailed = true } }

    var name: String { "C\(component).p\(provider)" + (strategy.isKeyed ? "[\(key)]" : "") + " #\(serial)" }
}

/// What a run shares between its threads and tasks: the clock and the serials, the faults, what
/// each component's resets and shutdown did, and what the checks found. Guarded by its lock.
final class ModelWorld: @unchecked Sendable {
    /// The operation whose resolution runs on this thread or in this task.
    @TaskLocal static var operation = 0
    /// The provider that a `fresh { }` asks for itself: its component and index. A factory and a
    /// `configure:` clear it for what they ask for, so that only the `fresh` call's own build sees it.
    @TaskLocal static var freshTarget: (component: Int, provider: Int)?
    /// In a task that an async factory started to outlive its resolution, what it opens once its
    /// `configure:` has its scoped instance (see `ConfigureSpec.outliving`).
    @TaskLocal static var outlivingTask: OneTimeSignal?

    /// A lock, and the condition of an operation's end (`waitUntilEnded(_:)`).
    private let lock = NSCondition()
    private var random: SplitMix
    private var clock = 0
    private var serials = 0
    private var operations = 0
    private var componentCount = 0
    /// The operations whose resolution has started a task that outlives it.
    private var outlivedOperations: Set<Int> = []
    // Resets: a component's count goes up by one when a reset begins and one when it ends, so a call
    // that reads the same even count before and after overlapped none.
    private var resets: [Int: Int] = [:]
    private var shutdownEnds: [Int: Int] = [:]
    private(set) var divergences: [String] = []
    private(set) var faults = 0
    private(set) var observations: [Observation] = []
    private(set) var nodes: [WeakReference] = []
    private(set) var built: [Int: [NodeRecord]] = [:]
    private(set) var components: [(id: Int, reference: WeakReference)] = []
    /// The components shut down, in order.
    private(set) var shutDown: [Int] = []
    /// The instances that a `fresh { }` built itself, anew, to be cached nowhere.
    private(set) var freshSerials: Set<Int> = []
    /// The serials each component closed, in the order it closed them, and how often each was.
    private(set) var closeOrder: [Int: [Int]] = [:]
    private(set) var closeCounts: [Int: Int] = [:]

    init(seed: UInt64) {
        random = SplitMix(seed: seed ^ 0xFA17_FA17)
    }

    func tick() -> Int {
        lock.withLock {
            clock += 1
            return clock
        }
    }

    func nextOperation() -> Int {
        lock.withLock {
            operations += 1
            return operations
        }
    }

    /// The next component's identity: the program's components take their indices, in order.
    func nextComponentID() -> Int {
        lock.withLock {
            defer { componentCount += 1 }
            return componentCount
        }
    }

    func track(_ component: AnyObject, id: Int) {
        lock.withLock { components.append((id, WeakReference(component))) }
    }

    /// Throws a fault in a fifth of the calls.
    func maybeFail() throws(ModelFault) {
        let fault: ModelFault? = lock.withLock {
            guard Int.random(in: 0..<5, using: &random) == 0 else { return nil }
            faults += 1
            return ModelFault(number: faults)
        }
        if let fault { throw fault }
    }

    func diverged(_ text: String) { lock.withLock { divergences.append(text) } }

    func epoch(of component: Int) -> Int { lock.withLock { resets[component, default: 0] } }
    func resetBegins(_ component: Int) {
        lock.withLock {
            resets[component, default: 0] += 1
            clock += 1
            resetStarts[component, default: []].append(clock)
        }
    }

    /// When each reset of a component began, in order.
    private(set) var resetStarts: [Int: [Int]] = [:]
    /// When each operation's outermost call returned: by then, the builds its resolution held are
    /// published.
    private(set) var operationEnds: [Int: Int] = [:]

    func operationEnded(_ operation: Int) {
        lock.withLock {
            clock += 1
            operationEnds[operation] = clock
        }
        lock.broadcast()
    }

    /// Returns once the outermost call of `operation` has returned.
    func waitUntilEnded(_ operation: Int) {
        lock.withLock {
            while operationEnds[operation] == nil { lock.wait() }
        }
    }

    /// Whether the resolution of `operation` may start a task that outlives it: the first time it
    /// asks. One per resolution, so that no such task waits for the scoped build that another holds.
    func mayStartOutlivingTask(in operation: Int) -> Bool {
        lock.withLock { outlivedOperations.insert(operation).inserted }
    }
    func resetEnds(_ component: Int) { lock.withLock { resets[component, default: 0] += 1 } }

    func shutdownEnded(_ component: Int) {
        lock.withLock {
            if shutdownEnds[component] == nil {
                clock += 1
                shutdownEnds[component] = clock
                shutDown.append(component)
            }
        }
    }

    func shutdownEnd(of component: Int) -> Int? { lock.withLock { shutdownEnds[component] } }

    /// Makes the node that a factory returns.
    func node(
        component: Int, provider: Int, key: Int, strategy: ModelStrategy, dependencies: [Node], started: Int,
        overridden: Bool = false, closes: Bool, configures: Bool
    ) -> Node {
        let fresh = ModelWorld.freshTarget.map { $0 == (component, provider) } ?? false
        let operation = ModelWorld.operation
        return lock.withLock {
            serials += 1
            clock += 1
            let node = Node(
                component: component, provider: provider, key: strategy.isKeyed ? key : 0, strategy: strategy,
                serial: serials, operation: operation, dependencies: dependencies, started: started,
                finished: clock,
                overridden: overridden, closes: closes, configures: configures,
                epochs: (resetsBefore(started: started, component), resets[component, default: 0]),
                world: self)
            nodes.append(WeakReference(node))
            built[component, default: []].append(NodeRecord(node))
            if fresh { freshSerials.insert(node.serial) }
            return node
        }
    }

    /// The reset count of `component` when a factory that began at `started` began: kept per
    /// factory by `began(_:)`.
    private func resetsBefore(started: Int, _ component: Int) -> Int { startEpochs[started] ?? -1 }
    private var startEpochs: [Int: Int] = [:]

    /// Marks the start of a factory of `component`, and returns its time.
    func began(_ component: Int) -> Int {
        lock.withLock {
            clock += 1
            startEpochs[clock] = resets[component, default: 0]
            return clock
        }
    }

    func observe(_ observation: Observation) { lock.withLock { observations.append(observation) } }

    /// Records that a close action closed `node`.
    func closed(_ node: Node) {
        let now = tick()
        if let end = shutdownEnd(of: node.component), now > end {
            diverged("\(node.name) was closed after its component's shutdown returned")
        }
        lock.withLock {
            closeOrder[node.component, default: []].append(node.serial)
            closeCounts[node.serial, default: 0] += 1
        }
    }
}

/// What the checks keep of a node after it goes.
struct NodeRecord {
    let serial: Int
    let provider: Int
    let strategy: ModelStrategy
    let started: Int
    let closes: Bool
    let overridden: Bool
    /// The serials of its dependencies of the same component.
    let ownDependencies: [Int]

    init(_ node: Node) {
        (serial, provider, strategy, started, closes, overridden) = (
            node.serial, node.provider, node.strategy, node.started, node.closes, node.overridden
        )
        ownDependencies = node.dependencies.filter { $0.component == node.component }.map(\.serial)
    }
}

/// One call that an operation made and what it returned, for the checks at the end of a run.
struct Observation {
    enum Kind { case resolve, fresh }
    let kind: Kind
    let component: Int
    let provider: Int
    let key: Int
    let strategy: ModelStrategy
    /// The component's reset count before and after the call.
    let epochs: (before: Int, after: Int)
    let serial: Int
    /// The operation that built it.
    let builtBy: Int
    /// The serial of its ring peer, for a member of a ring of `configure:` closures.
    let peer: Int?
    /// Its component's reset count when its factory began and returned, if it was the same even
    /// number; nil if a reset overlapped the factory.
    let builtInEpoch: Int?

    /// Whether no reset of the component overlapped the call.
    var isStable: Bool { epochs.before == epochs.after && epochs.before % 2 == 0 }
}

final class WeakReference: @unchecked Sendable {
    // Written once, by the initializer; a weak reference loads atomically.
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}

/// A component of the program.
final class ModelComponent: Component, @unchecked Sendable {
    // Immutable, but for `parentIfAny`, set once before anyone else can reach the component.
    let id: Int
    let providers: [ProviderSpec]
    let world: ModelWorld

    init(providers: [ProviderSpec], world: ModelWorld) {
        self.providers = providers
        self.world = world
        id = world.nextComponentID()
        super.init()
        world.track(self, id: id)
    }

    var graph: ModelModule { module() }
    @MainActor var screens: ModelScreens { module() }
    var up: ModelComponent { parent() }

    /// The component `levels` up.
    func ancestor(_ levels: Int) -> ModelComponent { levels == 0 ? self : up.ancestor(levels - 1) }

    /// This component and its ancestors, the root first.
    var chain: [ModelComponent] {
        var chain: [ModelComponent] = [self]
        while let parent = chain[0].parentIfAny { chain.insert(parent, at: 0) }
        return chain
    }

    /// The parent, if the component has one: set once, by `setParent(_:)`, before anyone else can
    /// reach the component.
    private(set) var parentIfAny: ModelComponent?

    func setParent(_ parent: ModelComponent) {
        parentIfAny = parent
        self.parent(parent)
    }

    // MARK: Factories

    /// The synchronous factory of provider `index`: resolves its dependencies, then makes its node.
    /// A factory that cannot throw drops a dependency that failed.
    func make(_ index: Int, key: Int) throws(ModelFault) -> Node {
        let spec = providers[index]
        let started = world.began(id)
        if spec.throwing { try world.maybeFail() }
        var dependencies: [Node] = []
        for dependency in spec.dependencies {
            do {
                dependencies.append(try ModelWorld.$freshTarget.withValue(nil) { try resolve(dependency) })
            } catch {
                if spec.throwing { throw error as! ModelFault }
            }
        }
        return world.node(
            component: id, provider: index, key: key, strategy: spec.strategy, dependencies: dependencies,
            started: started, closes: spec.closes, configures: spec.configure != nil)
    }

    /// `make` for a factory that cannot throw.
    func makeSafely(_ index: Int, key: Int) -> Node {
        do { return try make(index, key: key) } catch {
            preconditionFailure("a factory that cannot throw threw")
        }
    }

    /// A synchronous dependency.
    func resolve(_ dependency: Dependency) throws(ModelFault) -> Node {
        try ancestor(dependency.levelsUp).graph.node(dependency.provider, key: dependency.key)
    }

    /// The async factory of provider `index`: awaits between its dependencies, the first two async
    /// ones in child tasks when it says so.
    func makeAsync(_ index: Int, key: Int) async throws -> Node {
        let spec = providers[index]
        let started = world.began(id)
        if spec.throwing { try world.maybeFail() }
        await Task.yield()
        var dependencies: [Node] = []
        var pending = spec.dependencies
        if spec.inChildTasks, pending.count >= 2 {
            let (first, second) = (pending.removeFirst(), pending.removeFirst())
            async let one = resolveAnyhow(first)
            async let two = resolveAnyhow(second)
            let pair = (try await one, try await two)
            dependencies += [pair.0, pair.1].compactMap { $0 }
        }
        for dependency in pending {
            if let node = try await resolveAnyhow(dependency) { dependencies.append(node) }
            await Task.yield()
        }
        if spec.throwing { try Task.checkCancellation() }
        if let holder = spec.startsTask { await startOutlivingTask(calling: holder) }
        return world.node(
            component: id, provider: index, key: key, strategy: spec.strategy, dependencies: dependencies,
            started: started, closes: spec.closes, configures: spec.configure != nil)

        /// A dependency of this async factory, sync or async; nil for one that failed, which a factory
        /// that cannot throw drops.
        func resolveAnyhow(_ dependency: Dependency) async throws -> Node? {
            let owner = ancestor(dependency.levelsUp)
            do {
                return try await ModelWorld.$freshTarget.withValue(nil) {
                    if owner.providers[dependency.provider].strategy.isAsync {
                        return try await owner.graph.asyncNode(dependency.provider, key: dependency.key)
                    }
                    return try owner.graph.node(dependency.provider, key: dependency.key)
                }
            } catch {
                if spec.throwing { throw error }
                return nil
            }
        }
    }

    /// Starts the task that the async factory of a provider with `startsTask` starts, which calls
    /// the synchronous provider `holder` with a key of its own and outlives the factory's resolution;
    /// returns once the holder's `configure:` has its scoped instance, or the task's call returned.
    /// The task runs on a thread of its own, which the `configure:` blocks.
    func startOutlivingTask(calling holder: Int) async {
        let operation = ModelWorld.operation
        guard world.mayStartOutlivingTask(in: operation) else { return }
        let reached = OneTimeSignal()
        Task(executorPreference: ThreadPerJob.executor) { [self] in
            ModelWorld.$outlivingTask.withValue(reached) {
                _ = try? ifAdmitted { try? graph.node(holder, key: operation) }
            }
            reached.open()
        }
        await reached.wait()
    }

    /// The main-actor factory of provider `index`: its dependencies are main-actor providers of its
    /// own component and synchronous ones anywhere.
    @MainActor func makeOnMainActor(_ index: Int, key: Int) throws(ModelFault) -> Node {
        let spec = providers[index]
        let started = world.began(id)
        if spec.throwing { try world.maybeFail() }
        var dependencies: [Node] = []
        for dependency in spec.dependencies {
            do {
                try ModelWorld.$freshTarget.withValue(nil) {
                    if dependency.levelsUp == 0 && providers[dependency.provider].strategy.isMainActor {
                        dependencies.append(try screens.node(dependency.provider, key: dependency.key))
                    } else {
                        dependencies.append(try resolve(dependency))
                    }
                }
            } catch {
                if spec.throwing { throw error as! ModelFault }
            }
        }
        return world.node(
            component: id, provider: index, key: key, strategy: spec.strategy, dependencies: dependencies,
            started: started, closes: spec.closes, configures: spec.configure != nil)
    }

    /// The `configure:` of the async provider `index`'s `node`: a ring's awaits its peer, an async
    /// single whose own `configure:` awaits this node; any other is `configure(_:_:)`.
    func configureAsync(_ index: Int, _ node: Node) async throws(ModelFault) {
        guard let other = providers[index].configure?.peer else { return try configure(index, node) }
        let peer = await ModelWorld.$freshTarget.withValue(nil) { try? await graph.asyncNode(other, key: 0) }
        node.markConfigured(peer: peer)
    }

    /// The `configure:` of provider `index`'s `node`: a ring's asks for its peer, whose own
    /// `configure:` asks for this node; a plain one that can throw fails a fifth of the time.
    func configure(_ index: Int, _ node: Node) throws(ModelFault) {
        let spec = providers[index]
        var peer: Node?
        if let other = spec.configure?.peer {
            peer = ModelWorld.$freshTarget.withValue(nil) { try? graph.node(other, key: 0) }
        } else if case .outliving(let scoped) = spec.configure {
            configureInOutlivingTask(scoped)
        } else if spec.throwing {
            do {
                try world.maybeFail()
            } catch {
                node.markConfigureFailed()
                throw error
            }
        }
        node.markConfigured(peer: peer)
    }

    /// The `configure:` of `ConfigureSpec.outliving`: gets the instance of the `scoped` provider,
    /// which must be the resolution's own, not one that an earlier resolution's task made; then, in
    /// the task that outlives the resolution, says so and waits until the resolution has returned.
    private func configureInOutlivingTask(_ scoped: Int) {
        let operation = ModelWorld.operation
        if let instance = try? graph.node(scoped, key: 0), instance.operation != operation {
            world.diverged(
                "operation \(operation)'s task got the scoped \(instance.name), built by operation "
                    + "\(instance.operation): a scoped instance is one resolution's")
        }
        guard let reached = ModelWorld.outlivingTask else { return }
        reached.open()
        world.waitUntilEnded(operation)
    }
}

/// Opened once, from any thread or task; the tasks that wait for it resume then, and later ones go
/// straight on.
final class OneTimeSignal: @unchecked Sendable {
    // `waiters` is guarded by `lock`; nil once the signal is open.
    private let lock = NSLock()
    private var waiters: [CheckedContinuation<Void, Never>]? = []

    func open() {
        let waiting = lock.withLock {
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = lock.withLock {
                waiters?.append(continuation)
                return waiters == nil
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Runs each job of the tasks that prefer it on a thread started for that job, so that a task that
/// blocks its thread holds none of the shared pool's. A task's jobs run one after another, each on
/// its own thread.
final class ThreadPerJob: TaskExecutor {
    static let executor = ThreadPerJob()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread { job.runSynchronously(on: ThreadPerJob.executor.asUnownedTaskExecutor()) }.start()
    }
}
