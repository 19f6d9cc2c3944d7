import Dirk
import Foundation

/// What one seed's run did and found.
public struct SeedReport: Sendable {
    public let seed: UInt64
    public let components: Int
    public let providers: Int
    public let operations: Int
    /// Calls that a component's shutdown refused, observed through the gate's test hook.
    public let refused: Int
    public let faults: Int
    public let instances: Int
    /// What the run did that the model does not allow; empty when it passed.
    public let divergences: [String]
    public let program: String
}

/// Runs programs against Dirk and checks them against the model.
public enum ModelTest {
    /// The promises that the generator does not exercise yet, because Dirk does not keep them.
    public static var knownDivergences: [String] { Checker.knownDivergences }

    /// Runs the program of `seed` and checks it.
    public static func run(seed: UInt64) async -> SeedReport {
        await run(.random(seed: seed))
    }

    /// Runs `program` and checks it.
    public static func run(_ program: ModelProgram) async -> SeedReport {
        let world = ModelWorld(seed: program.seed)
        let checker = Checker(world: world)
        var components: [ModelComponent?] = []
        for spec in program.components {
            let component = ModelComponent(providers: spec.providers, world: world)
            if let parent = spec.parent { component.setParent(components[parent]!) }
            for index in spec.overridden { await override(index, of: component) }
            components.append(component)
        }
        world.operationEnded(0)  // the overrides' set-up
        let refused = Counter()
        // Each worker holds the components it uses, and lets go of one released early after its last
        // use; the program holds the others.
        await withTaskGroup(of: Void.self) { group in
            for worker in program.workers {
                let runner = WorkerRunner(
                    worker: worker, components: components, program: program, world: world, checker: checker,
                    refused: refused)
                group.addTask { await runner.run() }
            }
            for (index, spec) in program.components.enumerated() where spec.releasedEarly {
                components[index] = nil
            }
            await group.waitForAll()
        }
        // What is left is shut down, children first, and let go.
        for component in components.reversed() {
            guard let component else { continue }
            try? await component.shutdown()
            world.shutdownEnded(component.id)
        }
        checker.checkObservations()
        checker.checkClosesAndShutdowns()
        components = []
        checker.checkReleased()
        return SeedReport(
            seed: program.seed, components: program.components.count,
            providers: program.components.reduce(0) { $0 + $1.providers.count },
            operations: program.operationCount,
            refused: refused.count, faults: world.faults, instances: world.nodes.count,
            divergences: world.divergences, program: program.description)
    }

    /// Overrides provider `index` of `component`, before its first resolution, with a factory whose
    /// instance says so and has no close action.
    private static func override(_ index: Int, of component: ModelComponent) async {
        let spec = component.providers[index]
        let fake: @Sendable (ModelComponent) -> Node = { c in
            c.world.node(
                component: c.id, provider: index, key: 0, strategy: spec.strategy, dependencies: [],
                started: c.world.began(c.id), overridden: true, closes: false,
                configures: spec.configure != nil)
        }
        if spec.strategy.isSync {
            component.overriding({ try $0.graph.node(index, key: 0) }, with: fake)
        } else if spec.strategy.isAsync {
            await component.overriding({ try await $0.graph.asyncNode(index, key: 0) }, with: fake)
        }
    }
}

/// Counts from any thread.
final class Counter: @unchecked Sendable {
    // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0

    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// One worker of a run: a thread or a task that runs its operations in order.
struct WorkerRunner: @unchecked Sendable {
    // Immutable; its components are `Sendable`, and its worker's are read-only.
    let worker: WorkerSpec
    let components: [ModelComponent?]
    let program: ModelProgram
    let world: ModelWorld
    let checker: Checker
    let refused: Counter

    /// Runs the worker's operations: on a thread of its own, or in this task.
    func run() async {
        switch worker.kind {
        case .task:
            var held = components
            for position in worker.operations.indices {
                await perform(worker.operations[position], held)
                release(after: position, in: &held)
            }
        case .thread:
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    var held = components
                    for position in worker.operations.indices {
                        performOnThread(worker.operations[position], held)
                        release(after: position, in: &held)
                    }
                    done.resume()
                }.start()
            }
        }
    }

    /// Lets go of each component released early that the operations after `position` do not use.
    private func release(after position: Int, in held: inout [ModelComponent?]) {
        for (index, spec) in program.components.enumerated() where spec.releasedEarly && held[index] != nil {
            if !worker.operations[(position + 1)...].contains(where: { $0.uses(index) }) { held[index] = nil }
        }
    }

    /// Performs `operation` in this task.
    private func perform(_ operation: Operation, _ held: [ModelComponent?]) async {
        switch operation {
        case .resolve(let index, let provider, let key):
            guard let component = held[index] else { return }
            await resolve(provider, key: key, in: component)
        case .resolveHolding(let index, let provider, let key):
            guard let component = held[index] else { return }
            let epoch = world.epoch(of: component.id)
            guard let first = await resolve(provider, key: key, in: component) else { return }
            let second = await resolve(provider, key: key, in: component)
            checkHeld(first, second, epoch: epoch, component: component)
        case .handles(let index, let provider, let key):
            guard let component = held[index] else { return }
            if component.providers[provider].strategy.isAsync {
                await asyncHandles(provider, key: key, in: component)
            } else {
                handles(provider, key: key, in: component)
            }
        case .fresh(let index, let provider, let key):
            guard let component = held[index] else { return }
            await fresh(provider, key: key, in: component)
        case .cancel(let index, let provider, let key):
            guard let component = held[index] else { return }
            let operation = world.nextOperation()
            let task = Task {
                await ModelWorld.$operation.withValue(operation) {
                    await admittedAsync(component.chain[...], failed: nil) {
                        try? await component.graph.asyncNode(provider, key: key)
                    }
                }
            }
            task.cancel()
            let outcome = await task.value
            world.operationEnded(operation)
            if case .some(.some(let node)) = outcome {
                checker.check([node], returnedTo: operation)
            }
        case .reset(let index):
            guard let component = held[index] else { return }
            reset(component)
        case .shutdown(let index):
            guard let component = held[index] else { return }
            try? await component.shutdown()
            world.shutdownEnded(component.id)
        case .child(let index, let providers):
            guard let parent = held[index] else { return }
            var child: ModelComponent? = ModelComponent(providers: providers, world: world)
            child!.setParent(parent)
            let reference = WeakReference(child!)
            for index in providers.indices.reversed() { await resolve(index, key: index % 3, in: child!) }
            try? await child!.shutdown()
            world.shutdownEnded(child!.id)
            child = nil
            checkGone(reference)
        }
    }

    /// Performs `operation` on this thread, which calls only synchronous providers, and blocks where
    /// a task would await.
    private func performOnThread(_ operation: Operation, _ held: [ModelComponent?]) {
        switch operation {
        case .resolve(let index, let provider, let key):
            guard let component = held[index] else { return }
            resolveOnThread(provider, key: key, in: component)
        case .resolveHolding(let index, let provider, let key):
            guard let component = held[index] else { return }
            let epoch = world.epoch(of: component.id)
            guard let first = resolveOnThread(provider, key: key, in: component) else { return }
            let second = resolveOnThread(provider, key: key, in: component)
            checkHeld(first, second, epoch: epoch, component: component)
        case .handles(let index, let provider, let key):
            guard let component = held[index] else { return }
            handles(provider, key: key, in: component)
        case .fresh(let index, let provider, let key):
            guard let component = held[index] else { return }
            freshOnThread(provider, key: key, in: component)
        case .cancel: break
        case .reset(let index):
            guard let component = held[index] else { return }
            reset(component)
        case .shutdown(let index):
            guard let component = held[index] else { return }
            blocking { try? await component.shutdown() }
            world.shutdownEnded(component.id)
        case .child(let index, let providers):
            guard let parent = held[index] else { return }
            var child: ModelComponent? = ModelComponent(providers: providers, world: world)
            child!.setParent(parent)
            let reference = WeakReference(child!)
            for index in providers.indices.reversed() { resolveOnThread(index, key: index % 3, in: child!) }
            do {
                let closing = child!
                blocking { try? await closing.shutdown() }
            }
            world.shutdownEnded(child!.id)
            child = nil
            checkGone(reference)
        }
    }

    private func reset(_ component: ModelComponent) {
        world.resetBegins(component.id)
        component.reset()
        world.resetEnds(component.id)
    }

    /// A `weak` instance that its caller held must come back from the next call, unless a reset
    /// came in between.
    private func checkHeld(_ first: Node, _ second: Node?, epoch: Int, component: ModelComponent) {
        guard let second, epoch % 2 == 0, world.epoch(of: component.id) == epoch, first !== second else {
            return
        }
        world.diverged(
            "\(first.name) was alive, held by its caller, and the next call of its weak provider returned "
                + "\(second.name)")
    }

    private func checkGone(_ reference: WeakReference) {
        waitUntilReleased([reference])
        if reference.object != nil {
            world.diverged("a child component outlived its last reference (a \(worker.kind)'s)")
            if let child = reference.object as? ModelComponent,
                ProcessInfo.processInfo.environment["DIRK_MODEL_DEBUG"] != nil
            {
                print("outlived: C\(child.id) \(child.providers.map(\.description))")
            }
        }
    }

    /// Calls provider `index` of `component` as an operation of its own, through every component's
    /// gate from the root down, and checks what it returns; nil when it failed or was refused.
    @discardableResult
    private func resolve(_ index: Int, key: Int, in component: ModelComponent) async -> Node? {
        let strategy = component.providers[index].strategy
        if strategy.isSync { return resolveOnThread(index, key: key, in: component) }
        let operation = world.nextOperation()
        let before = world.epoch(of: component.id)
        let outcome: Node?? = await ModelWorld.$operation.withValue(operation) {
            if strategy.isMainActor {
                return await MainActor.run {
                    admitted(component.chain[...], failed: nil) {
                        try? component.screens.node(index, key: key)
                    }
                }
            }
            return await admittedAsync(component.chain[...], failed: nil) {
                try? await component.graph.asyncNode(index, key: key)
            }
        }
        world.operationEnded(operation)
        return checked(
            outcome, operation: operation, in: component, key: key,
            epochs: (before, world.epoch(of: component.id)))
    }

    /// `resolve` of a synchronous provider, on the calling thread.
    @discardableResult
    private func resolveOnThread(_ index: Int, key: Int, in component: ModelComponent) -> Node? {
        let operation = world.nextOperation()
        let before = world.epoch(of: component.id)
        let outcome: Node?? = ModelWorld.$operation.withValue(operation) {
            admitted(component.chain[...], failed: nil) { try? component.graph.node(index, key: key) }
        }
        world.operationEnded(operation)
        return checked(
            outcome, operation: operation, in: component, key: key,
            epochs: (before, world.epoch(of: component.id)))
    }

    /// Checks what a call returned: nil when it failed, or, counted, when a gate refused it.
    private func checked(
        _ outcome: Node??, operation: Int, in component: ModelComponent, key: Int, epochs: (Int, Int),
        kind: Observation.Kind = .resolve
    ) -> Node? {
        guard case .some(let result) = outcome else {
            refused.increment()
            return nil
        }
        guard let node = result else { return nil }
        checker.check([node], returnedTo: operation)
        checker.observe(node, key: key, kind: kind, epochs: epochs)
        return node
    }

    /// Reads a `Lazy` twice and calls a `Provider` twice, of a synchronous provider.
    private func handles(_ index: Int, key: Int, in component: ModelComponent) {
        let lazy = component.lazy { try? $0.graph.node(index, key: key) }
        let provider = component.provider { try? $0.graph.node(index, key: key) }
        let operation = world.nextOperation()
        let outcome = ModelWorld.$operation.withValue(operation) {
            admitted(component.chain[...], failed: (nil, nil, nil, nil)) {
                (lazy.value, lazy.value, provider(), provider())
            }
        }
        world.operationEnded(operation)
        guard let (first, second, one, two) = outcome else {
            refused.increment()
            return
        }
        if first !== second { world.diverged("a Lazy of C\(component.id).p\(index) gave two values") }
        checker.check([first, one, two].compactMap { $0 }, returnedTo: operation)
        if component.providers[index].strategy.isTransient, let one, let two, one === two {
            world.diverged("a Provider of the transient \(one.name) gave one instance twice")
        }
    }

    /// Reads an `AsyncLazy` twice and calls an `AsyncProvider` twice, of an async provider.
    private func asyncHandles(_ index: Int, key: Int, in component: ModelComponent) async {
        let lazy = component.lazy { c async -> Node? in try? await c.graph.asyncNode(index, key: key) }
        let provider = component.provider { c async -> Node? in try? await c.graph.asyncNode(index, key: key)
        }
        let operation = world.nextOperation()
        let outcome = await ModelWorld.$operation.withValue(operation) {
            await admittedAsync(component.chain[...], failed: (nil, nil, nil, nil)) {
                (await lazy.value, await lazy.value, await provider(), await provider())
            }
        }
        world.operationEnded(operation)
        guard let (first, second, one, two) = outcome else {
            refused.increment()
            return
        }
        if first !== second { world.diverged("an AsyncLazy of C\(component.id).p\(index) gave two values") }
        checker.check([first, one, two].compactMap { $0 }, returnedTo: operation)
        if component.providers[index].strategy.isTransient, let one, let two, one === two {
            world.diverged("an AsyncProvider of the transient \(one.name) gave one instance twice")
        }
    }

    /// `fresh { }` of a cached async provider: a new instance, which the cache does not keep.
    private func fresh(_ index: Int, key: Int, in component: ModelComponent) async {
        guard component.providers[index].strategy.isAsync else {
            return freshOnThread(index, key: key, in: component)
        }
        let (operation, target) = (world.nextOperation(), (component.id, index))
        let before = world.epoch(of: component.id)
        let outcome: Node?? = await ModelWorld.$operation.withValue(operation) {
            await admittedAsync(component.chain[...], failed: nil) {
                await component.graph.fresh { module in
                    await ModelWorld.$freshTarget.withValue(target) {
                        try? await module.asyncNode(index, key: key)
                    }
                }
            }
        }
        world.operationEnded(operation)
        checkFresh(
            outcome, operation: operation, in: component, index: index, key: key,
            epochs: (before, world.epoch(of: component.id)))
    }

    /// `fresh { }` of a cached synchronous provider, on the calling thread.
    private func freshOnThread(_ index: Int, key: Int, in component: ModelComponent) {
        let (operation, target) = (world.nextOperation(), (component.id, index))
        let before = world.epoch(of: component.id)
        let outcome: Node?? = ModelWorld.$operation.withValue(operation) {
            admitted(component.chain[...], failed: nil) {
                component.graph.fresh { module in
                    ModelWorld.$freshTarget.withValue(target) { try? module.node(index, key: key) }
                }
            }
        }
        world.operationEnded(operation)
        checkFresh(
            outcome, operation: operation, in: component, index: index, key: key,
            epochs: (before, world.epoch(of: component.id)))
    }

    private func checkFresh(
        _ outcome: Node??, operation: Int, in component: ModelComponent, index: Int, key: Int,
        epochs: (Int, Int)
    ) {
        guard
            let node = checked(
                outcome, operation: operation, in: component, key: key, epochs: epochs, kind: .fresh)
        else { return }
        if !world.freshSerials.contains(node.serial) && !node.overridden {
            world.diverged(
                "fresh { } of C\(component.id).p\(index) returned \(node.name), which it did not build")
        }
    }

    /// Runs `body` inside every component of `chain`, entered through its gate from the root down,
    /// as one resolution; nil when a gate refuses, once that component's shutdown has begun; `failed`
    /// when the resolution cannot return what `body` returned, since it took another thread's
    /// half-configured instance whose build then failed (the outermost call throws).
    private func admitted<Result>(
        _ chain: ArraySlice<ModelComponent>, failed: Result, _ body: () -> Result
    ) -> Result? {
        guard let first = chain.first else { return body() }
        do { return try first.ifAdmitted { admitted(chain.dropFirst(), failed: failed, body) } ?? nil } catch
        {
            return failed
        }
    }

    /// `admitted` for a body that awaits.
    private func admittedAsync<Result>(
        _ chain: ArraySlice<ModelComponent>, failed: Result, _ body: () async -> Result
    ) async -> Result? {
        guard let first = chain.first else { return await body() }
        do {
            return try await first.ifAdmittedAwaiting {
                await admittedAsync(chain.dropFirst(), failed: failed, body)
            }
                ?? nil
        } catch { return failed }
    }
}

extension Operation {
    /// Whether the operation names the component at `index`.
    func uses(_ index: Int) -> Bool {
        switch self {
        case .resolve(let c, _, _), .resolveHolding(let c, _, _), .handles(let c, _, _), .fresh(let c, _, _),
            .cancel(let c, _, _):
            c == index
        case .reset(let c), .shutdown(let c): c == index
        case .child(let parent, _): parent == index
        }
    }
}

/// Returns once every object of `references` is gone, or after 10 s: a task that has just finished
/// may still hold what it captured for a moment, while its completion is under way on another
/// thread. A bound on a wait that must end, not a timing assertion: what is still alive then leaked.
func waitUntilReleased(_ references: [WeakReference]) {
    for _ in 0..<10_000 where references.contains(where: { $0.object != nil }) { usleep(1_000) }
}

/// Runs `body`, which awaits nothing that needs this thread, to its end on the calling thread.
func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
