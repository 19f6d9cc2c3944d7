/// One step of a resolution: a provider of a module running, a component creating a module, a
/// handle resolving its value, a keyed provider hashing its key, or an injector filling an object.
///
/// A step is a few words pushed by value, so a `transient` call allocates nothing. It names its
/// owner by address only (`owner`), to tell two modules of one type apart; whoever pushes a step
/// keeps the owner alive until it pops it.
@usableFromInline package struct Step: StackedStep {
    /// The kind of step:
    /// - `provider`: a provider's factory or `configure:` closure runs;
    /// - `moduleCreation`: a component creates the module of type `subject`;
    /// - `handle`: a `Lazy` or other handle resolves its value;
    /// - `keyHashing`: a `single(key:)` provider hashes or compares its key, which runs user code;
    /// - `injection`: an `Injector` fills the properties of an object of type `subject`, whose
    ///   address is the owner: one resolution for all of them.
    @usableFromInline package enum Kind: UInt8 {
        case provider, moduleCreation, handle, keyHashing, injection
    }

    @usableFromInline package let kind: Kind
    /// How the provider caches, for messages and traces: the provider's own for a key's hashing, and
    /// `.none` for the other steps that are not providers.
    @usableFromInline package let strategy: ProviderStrategy
    /// Which of a step stack's buckets the step falls in: steps that are the same always share a
    /// bucket. Two bytes, which share their word with `kind` and `strategy`.
    @usableFromInline let bucketIndex: UInt16
    /// The address of the module whose provider runs, of the component that creates a module, or
    /// of the handle; compared only.
    @usableFromInline package let owner: UInt
    /// The address of the component the step belongs to; compared only.
    @usableFromInline package let component: UInt
    @usableFromInline package let site: ProviderSite
    /// The provider's declared return type, or the module type being created.
    @usableFromInline package let type: Any.Type
    /// The module type that names the step.
    @usableFromInline package let subject: Any.Type
    /// The type of the component the step's provider belongs to, for messages.
    @usableFromInline package let componentType: Any.Type
    @inlinable package var bucket: Int { Int(bucketIndex) }

    @inlinable package init(
        _ kind: Kind, strategy: ProviderStrategy = .none, owner: UInt, component: UInt, site: ProviderSite,
        type: Any.Type, subject: Any.Type, componentType: Any.Type
    ) {
        self.kind = kind
        self.strategy = strategy
        self.owner = owner
        self.component = component
        self.site = site
        self.type = type
        self.subject = subject
        self.componentType = componentType
        let position: UInt64 =
            switch kind {
            case .provider, .keyHashing: UInt64(site.line) &<< 20 ^ UInt64(site.column)
            case .moduleCreation, .handle, .injection: 0
            }
        let bits =
            (UInt64(UInt(bitPattern: ObjectIdentifier(type))) ^ position ^ UInt64(owner) >> 4)
            &* 0x9E37_79B9_7F4A_7C15
        // The top ten bits: a thread's stack has 1,024 buckets, a task's fewer.
        bucketIndex = UInt16(truncatingIfNeeded: (bits ^ bits >> 29) >> 54)
    }

    /// The same step with another owner, and of another kind if `kind` is given: a key's step of a
    /// `single(key:)` provider, owned by the key's cell rather than by the module, or the provider's
    /// step that hashes its key (`keyHashing`).
    func owned(by owner: UInt, kind: Kind? = nil) -> Step {
        Step(
            kind ?? self.kind, strategy: strategy, owner: owner, component: component, site: site, type: type,
            subject: subject, componentType: componentType)
    }

    /// Whether both steps are the same step: the same provider of the same module, the same module
    /// created by the same component, the same `Lazy`, or `Provider` handles that one component made
    /// at the same place for the same component.
    @inlinable package func isSame(as other: Step) -> Bool {
        guard owner == other.owner, component == other.component, kind == other.kind,
            ObjectIdentifier(type) == ObjectIdentifier(other.type)
        else { return false }
        switch kind {
        // The same module of one component, or the same object filled by an injector of one type.
        case .moduleCreation, .injection: return true
        // The owner is a `Lazy` itself, or the component that made a `Provider`, a value with no
        // object of its own: two `Provider`s are the same step when it made them at the
        // same place for the same component, as the steps of one provider are.
        case .handle, .provider, .keyHashing:
            return ProviderKey(site: site, type: type) == ProviderKey(site: other.site, type: other.type)
        }
    }

    /// Whether the step builds an instance that a cell keeps (a `single`, `weak`, `scoped` or keyed
    /// provider's): a call that comes back through it ends in the cell, which hands its own builder
    /// the instance being configured, or reports the cycle.
    @inlinable package var isCachingBuild: Bool { kind == .provider && strategy.buildsInCell }

    /// How messages and resolution paths show the step: `DataModule.store()`,
    /// `DataModule.init(_:)`, `Lazy<Store>`, `Injector<ProfileController>.inject(into:from:)`.
    @usableFromInline package var name: String {
        switch kind {
        case .provider, .keyHashing: "\(subject).\(site.function)"
        case .moduleCreation: "\(subject).init(_:)"
        case .handle: "\(subject)"
        case .injection: "Injector<\(subject)>.\(site.function)"
        }
    }
}

/// How a provider caches its instances.
@usableFromInline package enum ProviderStrategy: UInt8 {
    case none, single, keyedSingle, weak, scoped, transient
    // The async strategies come last (`isAsync`).
    case asyncSingle, asyncTransient, asyncScoped, asyncKeyedSingle

    /// What each strategy does, by its raw value: its name in traces and messages; whether the
    /// component keeps its instance until a reset (or while held, for `weak`), which a `fresh` call
    /// builds anew; and whether it takes `configure:`, which breaks construction cycles.
    private static let table: [(name: String, isCached: Bool, takesConfigure: Bool)] = [
        ("none", false, false), ("single", true, true), ("single(key:)", true, true), ("weak", true, true),
        ("scoped", false, true), ("transient", false, false), ("async single", true, true),
        ("async transient", false, false), ("async scoped", false, false), ("async single(key:)", true, true),
    ]

    @usableFromInline package var name: String { Self.table[Int(rawValue)].name }
    package var isCached: Bool { Self.table[Int(rawValue)].isCached }
    package var takesConfigure: Bool { Self.table[Int(rawValue)].takesConfigure }
    /// Whether a cell keeps the instance while it is built: every strategy's but a `transient`'s.
    @inlinable package var buildsInCell: Bool {
        self != .none && self != .transient && self != .asyncTransient
    }
    package var isAsync: Bool { rawValue >= ProviderStrategy.asyncSingle.rawValue }
    @inlinable @inline(__always) package var isKeyed: Bool {
        self == .keyedSingle || self == .asyncKeyedSingle
    }
    /// Whether the strategy keeps one instance per resolution: `scoped`, sync or async.
    @inlinable @inline(__always) package var isScoped: Bool { self == .scoped || self == .asyncScoped }
    /// Whether the component keeps the instance until its shutdown closes it (`close:`).
    package var closes: Bool { isCached && self != .weak }
}
