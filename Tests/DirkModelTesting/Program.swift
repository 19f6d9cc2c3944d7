/// A program that the model test runs against Dirk: components several levels deep, the providers of
/// each, and the operations that threads and tasks make on them at once. Made from a seed by
/// `ModelProgram.random(seed:)`, so that a seed replays the program (the interleaving of its
/// threads and tasks is the machine's).
public struct ModelProgram: Sendable, CustomStringConvertible {
    public let seed: UInt64
    /// The components, the root first; each names its parent by index, a lower one.
    public var components: [ComponentSpec]
    /// The threads and tasks that run operations at once.
    public var workers: [WorkerSpec]

    /// Every operation of every worker.
    public var operationCount: Int { workers.reduce(0) { $0 + $1.operations.count } }

    public var description: String {
        var lines = ["program of seed \(seed):"]
        for (index, component) in components.enumerated() {
            let parent = component.parent.map { "child of C\($0)" } ?? "root"
            let released = component.releasedEarly ? ", released by its last user" : ""
            lines.append("  C\(index) (\(parent)\(released)):")
            for (provider, spec) in component.providers.enumerated() {
                lines.append("    p\(provider): \(spec)")
            }
            if !component.overridden.isEmpty {
                lines.append(
                    "    overridden: \(component.overridden.map { "p\($0)" }.joined(separator: ", "))")
            }
        }
        for (index, worker) in workers.enumerated() {
            lines.append("  worker \(index), a \(worker.kind):")
            lines += worker.operations.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// One component: its parent, its providers, and the providers that an override replaces when it
/// is built.
public struct ComponentSpec: Sendable {
    public var parent: Int?
    public var providers: [ProviderSpec]
    public var overridden: [Int]
    /// Whether the program lets go of the component as soon as its workers are done with it, while
    /// others may still run: it then holds no instance with a close action, and is not shut down.
    public var releasedEarly: Bool
}

/// How one provider caches, and whether it awaits or belongs to the main actor.
public enum ModelStrategy: Int, Sendable, CaseIterable, CustomStringConvertible {
    case single, keyed, transient, weak, scoped
    case asyncSingle, asyncKeyed, asyncTransient, asyncScoped
    case mainSingle, mainKeyed, mainTransient, mainWeak, mainScoped

    public var isAsync: Bool {
        self == .asyncSingle || self == .asyncKeyed || self == .asyncTransient || self == .asyncScoped
    }
    public var isMainActor: Bool { rawValue >= ModelStrategy.mainSingle.rawValue }
    public var isSync: Bool { !isAsync && !isMainActor }
    /// Whether the component keeps one instance (per key) until it is reset.
    public var isSingle: Bool {
        [.single, .keyed, .asyncSingle, .asyncKeyed, .mainSingle, .mainKeyed].contains(self)
    }
    public var isKeyed: Bool { self == .keyed || self == .asyncKeyed || self == .mainKeyed }
    public var isTransient: Bool { self == .transient || self == .asyncTransient || self == .mainTransient }
    public var isWeak: Bool { self == .weak || self == .mainWeak }
    public var isScoped: Bool { self == .scoped || self == .asyncScoped || self == .mainScoped }
    /// Whether the strategy takes `configure:`.
    public var configures: Bool { !isTransient && self != .asyncScoped }
    /// Whether the strategy takes `close:`.
    public var closes: Bool { isSingle }

    public var description: String {
        switch self {
        case .single: "single"
        case .keyed: "single(key:)"
        case .transient: "transient"
        case .weak: "weak"
        case .scoped: "scoped"
        case .asyncSingle: "async single"
        case .asyncKeyed: "async single(key:)"
        case .asyncTransient: "async transient"
        case .asyncScoped: "async scoped"
        case .mainSingle: "main-actor single"
        case .mainKeyed: "main-actor single(key:)"
        case .mainTransient: "main-actor transient"
        case .mainWeak: "main-actor weak"
        case .mainScoped: "main-actor scoped"
        }
    }
}

/// One provider of a component.
public struct ProviderSpec: Sendable, CustomStringConvertible {
    public var strategy: ModelStrategy
    /// What its factory resolves, in its own component or an ancestor.
    public var dependencies: [Dependency]
    /// Whether it has a `close:` action.
    public var closes: Bool
    /// Its `configure:` closure, if it has one.
    public var configure: ConfigureSpec?
    /// Whether its factory, and its `configure:`, can throw: then a fault is injected into a fifth
    /// of their calls, and the provider throws `ModelFault` (an async one, any error).
    public var throwing: Bool
    /// Whether its async factory awaits the first two of its async dependencies in child tasks
    /// (`async let`), which share the resolution.
    public var inChildTasks: Bool
    /// The synchronous provider, if any, that its async factory calls in a `Task { }` that it starts
    /// and that outlives its resolution (see `ConfigureSpec.outliving`).
    public var startsTask: Int? = nil
    /// Whether only such a task calls it: no factory, worker or override does, so that nothing else
    /// waits for the builds that the task holds while it waits.
    public var onlyInOutlivingTask = false

    public var description: String {
        var parts = ["\(strategy)"]
        if !dependencies.isEmpty {
            parts.append("needs " + dependencies.map(\.description).joined(separator: ", "))
        }
        if closes { parts.append("close:") }
        if let configure { parts.append("\(configure)") }
        if throwing { parts.append("throws") }
        if inChildTasks { parts.append("async let") }
        if let startsTask { parts.append("starts a Task that outlives it and calls p\(startsTask)") }
        if onlyInOutlivingTask { parts.append("called only in that Task") }
        return parts.joined(separator: "; ")
    }
}

/// A provider that a factory resolves: `levelsUp` components up (0, its own), with `key` for a
/// keyed one.
public struct Dependency: Sendable, CustomStringConvertible {
    public var levelsUp: Int
    public var provider: Int
    public var key: Int

    public var description: String { levelsUp == 0 ? "p\(provider)" : "\(levelsUp) up p\(provider)" }
}

/// A `configure:` closure: it marks the instance configured, and, in a ring, sets the instance's
/// peer to the other member's instance, which asks for this one back in its own `configure:`.
public enum ConfigureSpec: Sendable, CustomStringConvertible {
    case plain
    /// One member of a ring of two in the same component.
    case ring(peer: Int)
    /// Asks for the synchronous `scoped` provider `scoped`; then, in a `Task { }` that an async
    /// factory started (see `ProviderSpec.startsTask`), waits until that factory's resolution has
    /// returned, so that the resolution's scope ends while the task holds the scoped build: the
    /// shape of review R1 (issue 83).
    case outliving(scoped: Int)

    public var description: String {
        switch self {
        case .plain: "configure:"
        case .ring(let peer): "configure: ring with p\(peer)"
        case .outliving(let scoped): "configure: asks for p\(scoped), then waits until the resolution ends"
        }
    }

    public var peer: Int? { if case .ring(let peer) = self { peer } else { nil } }
}

/// A thread or a task, and what it does.
public struct WorkerSpec: Sendable {
    public enum Kind: String, Sendable { case thread, task }
    public var kind: Kind
    public var operations: [Operation]
}

/// One operation of a worker.
public enum Operation: Sendable, CustomStringConvertible {
    /// Calls a provider (a thread calls only synchronous ones; a task any, hopping to the main actor
    /// for a main-actor one).
    case resolve(component: Int, provider: Int, key: Int)
    /// Calls a `weak` provider twice, holding the first instance: the second call must return it,
    /// unless the component was reset meanwhile.
    case resolveHolding(component: Int, provider: Int, key: Int)
    /// Reads a `Lazy` twice, and calls a `Provider` twice, or their async forms for an async
    /// provider: the `Lazy` keeps its first value.
    case handles(component: Int, provider: Int, key: Int)
    /// `fresh { }` of a cached provider: a new instance, cached nowhere.
    case fresh(component: Int, provider: Int, key: Int)
    /// Starts an async call in a task of its own and cancels it at once.
    case cancel(component: Int, provider: Int, key: Int)
    case reset(component: Int)
    /// `shutdown()`, while other workers may still call through the component.
    case shutdown(component: Int)
    /// Opens a child of the component with `providers`, resolves each once from its last down,
    /// shuts it down and lets it go: it must then be gone.
    case child(parent: Int, providers: [ProviderSpec])

    public var description: String {
        switch self {
        case .resolve(let c, let p, let k): "resolve C\(c).p\(p) key \(k)"
        case .resolveHolding(let c, let p, let k): "resolve C\(c).p\(p) key \(k) twice, holding it"
        case .handles(let c, let p, let k): "handles of C\(c).p\(p) key \(k)"
        case .fresh(let c, let p, let k): "fresh C\(c).p\(p) key \(k)"
        case .cancel(let c, let p, let k): "cancel a call of C\(c).p\(p) key \(k)"
        case .reset(let c): "reset C\(c)"
        case .shutdown(let c): "shut down C\(c)"
        case .child(let parent, let providers):
            "open a child of C\(parent) with "
                + providers.enumerated().map { "p\($0): \($1)" }.joined(separator: " | ")
        }
    }
}

extension ModelProgram {
    /// The program of `seed`: up to `maxComponents` components, up to 4 levels deep, each with up to
    /// `maxProviders` providers, and 2 to 5 workers with up to `maxOperations` operations each.
    public static func random(
        seed: UInt64, maxComponents: Int = 6, maxProviders: Int = 14, maxOperations: Int = 40
    ) -> ModelProgram {
        var random = SplitMix(seed: seed)
        var components: [ComponentSpec] = []
        let count = Int.random(in: 1...maxComponents, using: &random)
        var depths: [Int] = []
        for index in 0..<count {
            // A tree: each component's parent is an earlier one no deeper than 3 levels.
            let candidates = (0..<index).filter { depths[$0] < 3 }
            let parent = index == 0 ? nil : candidates.randomElement(using: &random)
            depths.append(parent.map { depths[$0] + 1 } ?? 0)
            let releasedEarly = index > 0 && Int.random(in: 0..<5, using: &random) == 0
            let providers = randomProviders(
                count: Int.random(in: 1...maxProviders, using: &random),
                ancestors: collectProviders(components, from: parent), closes: !releasedEarly,
                outlivingTask: true, using: &random)
            let overridable = providers.indices.filter {
                providers[$0].configure?.peer == nil && !providers[$0].strategy.isMainActor
                    && !providers[$0].onlyInOutlivingTask
            }
            let overridden = overridable.filter { _ in Int.random(in: 0..<8, using: &random) == 0 }
            components.append(
                ComponentSpec(
                    parent: parent, providers: providers, overridden: overridden, releasedEarly: releasedEarly
                ))
        }
        let workers = (0..<Int.random(in: 2...5, using: &random)).map { _ in
            randomWorker(components, maxOperations: maxOperations, using: &random)
        }
        return ModelProgram(seed: seed, components: components, workers: workers)
    }

    /// The providers of `level` and its ancestors, nearest first.
    private static func collectProviders(_ components: [ComponentSpec], from level: Int?)
        -> [[ProviderSpec]]
    {
        var all: [[ProviderSpec]] = []
        var up = level
        while let index = up {
            all.append(components[index].providers)
            up = components[index].parent
        }
        return all
    }

    /// `count` random providers, and, if `outlivingTask`, maybe the shape of `ConfigureSpec.outliving`.
    private static func randomProviders(
        count: Int, ancestors: [[ProviderSpec]], closes: Bool, outlivingTask: Bool = false,
        strategies: [ModelStrategy] = ModelStrategy.allCases, using random: inout SplitMix
    ) -> [ProviderSpec] {
        var providers: [ProviderSpec] = []
        for _ in 0..<count {
            let strategy = strategies.randomElement(using: &random)!
            // What a factory may resolve: a synchronous plain provider from anywhere; an async one
            // from an async factory; a main-actor one from a main-actor factory, in its own
            // component. Lower indices in its own component, anything in an ancestor: acyclic.
            func allowed(_ candidate: ModelStrategy) -> Bool {
                candidate.isSync || (candidate.isAsync && strategy.isAsync)
            }
            var dependencies: [Dependency] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let levelsUp = Int.random(in: 0...ancestors.count, using: &random)
                let candidates = levelsUp == 0 ? providers : ancestors[levelsUp - 1]
                let choices = candidates.indices.filter { candidate in
                    let other = candidates[candidate]
                    return !other.onlyInOutlivingTask
                        && (allowed(other.strategy)
                            || (levelsUp == 0 && strategy.isMainActor && other.strategy.isMainActor))
                }
                guard let provider = choices.randomElement(using: &random) else { continue }
                dependencies.append(
                    Dependency(
                        levelsUp: levelsUp, provider: provider, key: Int.random(in: 0...2, using: &random)))
            }
            let configure: ConfigureSpec? =
                strategy.configures && Int.random(in: 0..<3, using: &random) == 0 ? .plain : nil
            providers.append(
                ProviderSpec(
                    strategy: strategy, dependencies: dependencies,
                    closes: closes && strategy.closes && Int.random(in: 0..<3, using: &random) == 0,
                    configure: configure, throwing: Int.random(in: 0..<4, using: &random) == 0,
                    inChildTasks: strategy.isAsync && Bool.random(using: &random)))
        }
        // Rings of `configure:` closures: two singles whose `configure:` each asks for the other,
        // which resolve from either end, on one thread or task or several at once. Their factories
        // need nothing else, but a synchronous one's may need the other, directly or through a
        // transient. Neither can throw: a synchronous `configure:` that can runs at once, inside the
        // factory that needs it, and then meets its peer unbuilt, as documented; and one that throws
        // after another thread took its instance stops a caller that cannot throw. An async ring's
        // factories need nothing: an async `configure:` runs at once, as documented.
        // The async ring is chosen without a draw, so that every seed's program is the one it was
        // before async rings were made.
        let singles = providers.indices.filter { providers[$0].strategy == .single }
        let asyncSingles = providers.indices.filter { providers[$0].strategy == .asyncSingle }
        var pair: [Int] = []
        if singles.count >= 2, Bool.random(using: &random) {
            pair = Array(singles.shuffled(using: &random).prefix(2))
        } else if asyncSingles.count >= 2, (asyncSingles[0] + asyncSingles[1]) % 2 == 0 {
            pair = Array(asyncSingles.prefix(2))
        }
        if !pair.isEmpty {
            let ringKind = providers[pair[0]].strategy
            for (member, peer) in [(pair[0], pair[1]), (pair[1], pair[0])] {
                providers[member].configure = .ring(peer: peer)
                providers[member].throwing = false
                providers[member].dependencies = []
            }
            // The later one's factory may need the earlier one, itself or through a transient that
            // needs nothing else.
            let (earlier, later) = (pair.min()!, pair.max()!)
            let transients = providers.indices.filter { providers[$0].strategy == .transient }
            switch ringKind == .single ? Int.random(in: 0..<3, using: &random) : 2 {
            case 0: providers[later].dependencies = [Dependency(levelsUp: 0, provider: earlier, key: 0)]
            case 1 where !transients.isEmpty:
                let transient = transients.randomElement(using: &random)!
                providers[transient].dependencies = [Dependency(levelsUp: 0, provider: earlier, key: 0)]
                providers[transient].throwing = false
                providers[later].dependencies = [Dependency(levelsUp: 0, provider: transient, key: 0)]
            default: break
            }
        }
        // The shape of review R1 (issue 83): the first async transient, when its index is even,
        // starts a `Task { }` that calls a `single(key:)` whose `configure:` asks for a `scoped`
        // provider and waits until the transient's resolution has returned. Both are new, and only
        // that task calls them. Chosen without a draw, as the async ring is.
        if outlivingTask,
            let starter = providers.indices.first(where: { providers[$0].strategy == .asyncTransient }),
            starter % 2 == 0
        {
            let scoped = providers.count
            providers.append(
                ProviderSpec(
                    strategy: .scoped, dependencies: [], closes: false, configure: nil, throwing: false,
                    inChildTasks: false, onlyInOutlivingTask: true))
            providers.append(
                ProviderSpec(
                    strategy: .keyed, dependencies: [], closes: false, configure: .outliving(scoped: scoped),
                    throwing: false, inChildTasks: false, onlyInOutlivingTask: true))
            providers[starter].startsTask = scoped + 1
        }
        return providers
    }

    private static func randomWorker(
        _ components: [ComponentSpec], maxOperations: Int, using random: inout SplitMix
    ) -> WorkerSpec {
        let kind: WorkerSpec.Kind = Bool.random(using: &random) ? .thread : .task
        var operations: [Operation] = []
        for _ in 0..<Int.random(in: 1...maxOperations, using: &random) {
            let component = Int.random(in: 0..<components.count, using: &random)
            let providers = components[component].providers
            // A thread calls only synchronous providers.
            let callable = providers.indices.filter {
                !providers[$0].onlyInOutlivingTask && (kind == .task || providers[$0].strategy.isSync)
            }
            let key = Int.random(in: 0...2, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            guard let provider = callable.randomElement(using: &random) else { continue }
            let strategy = providers[provider].strategy
            switch roll {
            case 0..<62: operations.append(.resolve(component: component, provider: provider, key: key))
            case 62..<68 where strategy.isWeak:
                operations.append(.resolveHolding(component: component, provider: provider, key: key))
            case 68..<74 where !strategy.isMainActor:
                operations.append(.handles(component: component, provider: provider, key: key))
            case 74..<78 where strategy == .single || strategy == .keyed || strategy == .asyncSingle:
                operations.append(.fresh(component: component, provider: provider, key: key))
            case 78..<84 where kind == .task && strategy.isAsync:
                operations.append(.cancel(component: component, provider: provider, key: key))
            case 84..<90: operations.append(.reset(component: component))
            case 90..<91: operations.append(.shutdown(component: component))
            case 92..<96:
                let providers = randomProviders(
                    count: Int.random(in: 1...4, using: &random),
                    ancestors: collectProviders(components, from: component), closes: true,
                    strategies: ModelStrategy.allCases.filter { kind == .task || $0.isSync }, using: &random)
                operations.append(.child(parent: component, providers: providers))
            default: operations.append(.resolve(component: component, provider: provider, key: key))
            }
        }
        return WorkerSpec(kind: kind, operations: operations)
    }
}

/// A deterministic random number generator, so that a seed replays a program exactly.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var bits = state
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }
}
