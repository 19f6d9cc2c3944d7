extension Component {
    /// The component's module of type `M`: the one registered with ``module(file:line:_:)``, or else one
    /// created with `M(self)` on first use and kept for the component's lifetime.
    ///
    /// Declare one accessor per module:
    ///
    /// ```swift
    /// var data: DataModule { module() }
    /// ```
    ///
    /// When many threads ask for a module first at once, one creates it and the others wait for
    /// that one. A module whose initializer needs itself, through other modules, stops the program
    /// with the path.
    ///
    /// **Complexity:** one lock-free table lookup once the module exists.
    ///
    /// - Parameters:
    ///   - file: The accessor's file, for messages; leave the default.
    ///   - line: The accessor's line, for messages; leave the default.
    /// - Returns: The module; the same instance on every call.
    @inlinable @inline(__always)
    public func module<M: AnyModule>(file: StaticString = #fileID, line: UInt = #line) -> M {
        if !ObjectLifetime.isDeinitializing(self), let module = modules.instance(of: M.self) { return module }
        return Erasure.module(uncachedModule(of: M.self, file: file, line: line), as: M.self)
    }

    /// Registers the module that `make` creates for this component, in place of its own type and
    /// of every module class it inherits from.
    ///
    /// Needed only to configure or substitute a module: ``module(file:line:)`` creates modules on
    /// first use.
    ///
    /// ```swift
    /// let app = AppComponent().module { StubNetworkModule($0) }  // serves `network` too
    /// ```
    ///
    /// Register modules before the component's first resolution; registering one whose type is
    /// already in use stops the program. A later registration replaces an earlier one, which is
    /// released.
    ///
    /// - Parameters:
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - make: Creates the module from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func module<M: AnyModule>(
        file: StaticString = #fileID, line: UInt = #line, _ make: (Self) -> M
    ) -> Self {
        let module = make(self)
        register(module, as: module.moduleClasses, file: file, line: line)
        return self
    }

    /// Registers the module that `make` creates, usually a subclass or a fake, in place of `type`.
    ///
    /// ```swift
    /// let app = AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The module type that accessors ask for.
    ///   - file: The call's file, for messages; leave the default.
    ///   - line: The call's line, for messages; leave the default.
    ///   - make: Creates the substitute from this component.
    /// - Returns: This component, for chaining.
    @discardableResult
    public consuming func module<M: AnyModule>(
        _ type: M.Type, file: StaticString = #fileID, line: UInt = #line, _ make: (Self) -> M
    ) -> Self {
        register(make(self), as: [type], file: file, line: line)
        return self
    }
}

extension Component {
    private func register(_ module: AnyModule, as types: [AnyModule.Type], file: StaticString, line: UInt) {
        // The closure that made the module ran on this thread.
        if Swift.type(of: module).isMainActorModule && !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleRegisteredOffMainThread(
                Swift.type(of: module), component: Swift.type(of: self), file: file, line: line)
        }
        guard module.belongs(to: self) else {
            Diagnostics.foreignModule(
                Swift.type(of: module),
                ofType: ClassHierarchy.isInstance(self, of: module.componentType)
                    ? nil : module.componentType,
                component: Swift.type(of: self), file: file, line: line)
        }
        for type in types where !ClassHierarchy.isInstance(module, of: type) {
            Diagnostics.registeredAsAnotherType(
                Swift.type(of: module), as: type, kind: "module", component: Swift.type(of: self), file: file,
                line: line)
        }
        let replaced = core.withLock { state in
            types.compactMap { type -> AnyModule? in
                let key = ObjectIdentifier(type)
                if modules.value(for: TypeKey(type), inliningHomeSlot: false) != nil
                    || state.isCreatingModule(key)
                {
                    Diagnostics.lateModule(
                        type, registered: Swift.type(of: module), component: Swift.type(of: self), file: file,
                        line: line)
                }
                state.registeredModules = state.registeredModules ?? [:]
                return state.registeredModules!.updateValue(module, forKey: key)
            }
        }
        // Released after the lock: a module's deinitializer may run user code.
        withExtendedLifetime(replaced) {}
    }

    /// `module()` when `modules` holds no module of `type` yet, or when the component's release has
    /// begun (which stops the program): publishes the registered module of `type`, or creates the
    /// default one, exactly once, in `modules`, and returns it: an instance of `type`, the module
    /// that `modules` holds under it.
    ///
    /// The first thread to ask creates the module with no lock held, after recording that it does;
    /// a thread that asks meanwhile waits for it in a cell made only then, and a module whose
    /// initializer needs itself stops the program with the path.
    ///
    /// Not generic, so that it is compiled once, specialized, rather than run as unspecialized
    /// generic code for every module type.
    @usableFromInline func uncachedModule(
        of type: AnyModule.Type, file: StaticString, line: UInt
    ) -> AnyModule {
        checkNotDeinitializing(type, file: file, line: line)
        return ResolutionContext.withCurrent { context in
            firstUse(of: type, in: context, file: file, line: line)
        }
    }

    /// `uncachedModule(of:file:line:)` on the thread of `context`, lent without a reference count.
    private func firstUse(
        of type: AnyModule.Type, in context: ResolutionContext, file: StaticString, line: UInt
    ) -> AnyModule {
        let key = ObjectIdentifier(type)
        // Made where it is needed: in place on the thread's stack when this call creates the
        // module, the common case. (Speed only: a frame is fourteen words.)
        @inline(__always) func frame() -> Frame {
            Frame(
                .moduleCreation, owner: UInt(bitPattern: ObjectIdentifier(self)),
                component: UInt(bitPattern: ObjectIdentifier(self)),
                site: ProviderSite(file: file, line: line, column: 0, function: "init(_:)"), type: type,
                subject: type, componentType: Swift.type(of: self))
        }
        let next: ModuleCreation.Next = core.withLock { state in
            if let published = modules.value(for: TypeKey(type), inliningHomeSlot: false) {
                return .published(published)
            }
            if let registered = state.removeRegisteredModule(for: key) {
                modules.insert(registered, asInstanceOf: type)
                return .published(registered)
            }
            if state.isCreatingNoModule {
                state.soleModuleCreation = ModuleCreation.Sole(
                    type: key, creator: UncountedReference(context))
                return .create
            }
            return state.nextForCreatingModule(key, by: context, frame: frame())
        }
        // A main-actor module's `makeDefault` checks the thread.
        func create() -> AnyModule { type.makeDefault(for: self, file: file, line: line) }
        switch next {
        case .published(let module):
            return module
        case .cycle:
            Diagnostics.cycle(
                path: context.steps(from: frame()) + [frame()], at: frame(), keys: ResolutionContext.stepKeys)
        case .wait(let cell):
            // The creator publishes the module before it completes the cell. The cell builds only
            // if it were empty, which a creation never leaves it.
            return cell.resolve(
                in: context, frame: frame(), build: create, configures: false, configure: { _ in })
        case .create:
            context.enter(frame)
            let module = create()
            let waiting = core.withLock { state in
                modules.insert(module, asInstanceOf: type)
                return state.finishCreatingModule(key)
            }
            waiting?.complete(with: module)
            if let failure = context.leave() { Diagnostics.resolutionEndFailed(failure, at: frame()) }
            return module
        }
    }
}

extension Component {
    /// How many callers wait for the module of `type` that this component's first use of it is
    /// creating: none when none does, or when the module is not being created. A test hook.
    package func callersWaiting(forModule type: AnyModule.Type) -> Int {
        let key = ObjectIdentifier(type)
        let cell = core.withLock { state in state.cellOfWaiters(forCreatingModule: key) }
        return cell?.status.waiters ?? 0
    }
}

/// A default module being created: who creates it, in which step, and the cell in which agents
/// that ask for the module meanwhile wait, made when the first of them does.
struct ModuleCreation {
    typealias Cell = OnceCell<StrongStorage<AnyModule>>

    /// What an agent that asks for a module does next.
    enum Next {
        /// Return the published module.
        case published(AnyModule)
        /// Create it: the agent is now recorded as its creator.
        case create
        /// Wait for its creator in `cell`.
        case wait(Cell)
        /// The agent creates it already: its initializer needs itself.
        case cycle
    }

    let type: ObjectIdentifier
    /// The creator's agent: the context of the thread in `firstUse`, which the thread-local
    /// variable owns until the thread exits. The record is appended and removed within that one
    /// call, so the creator outlives it, and the record keeps no count of its own. (The module's
    /// initializer returns, or traps and ends the process: Swift unwinds no frames. An
    /// initializer that ended its own thread, with `pthread_exit`, would leave the record behind,
    /// as it would leave every frame of its thread uncleaned: outside Dirk's contract.)
    private let creator: UncountedReference<BuildAgent>
    private var waitingCell: (cell: Cell, generation: UInt64)?

    init(type: ObjectIdentifier, creator: UncountedReference<BuildAgent>) {
        self.type = type
        self.creator = creator
    }

    /// What `agent`, asking for the module in the step `frame` while it is created, does next;
    /// makes the cell for it to wait in, building on the creator's behalf, if there is none yet.
    ///
    /// Every step that creates one module of one component is the same step, whichever accessor
    /// asked, so `frame` stands for the creator's step too.
    mutating func next(for agent: BuildAgent, frame: Frame) -> Next {
        if creator.refers(to: agent) { return .cycle }
        if let waitingCell { return .wait(waitingCell.cell) }
        var machine = OnceStateMachine<StrongStorage<AnyModule>>()
        guard case .build(let generation) = machine.claim(by: creator.object, frame: frame) else {
            preconditionFailure("Dirk internal error: a new cell was not empty")
        }
        let cell = Cell.make(machine)
        waitingCell = (cell, generation)
        return .wait(cell)
    }

    /// The cell in which agents wait for the module, once one does.
    var cellOfWaiters: Cell? { waitingCell?.cell }

    /// Hands the created module to the agents that wait for it. Call it with no lock held.
    func complete(with module: AnyModule) {
        guard let waitingCell else { return }
        waitingCell.cell.complete(module, generation: waitingCell.generation)
    }
}

extension ModuleCreation {
    /// A default module being created that nobody waits for: its type, and its creator, whom the
    /// record names as `ModuleCreation` does, without a reference count. Plain words: recording
    /// and removing it neither count references nor allocate. (Speed only: a list of records made
    /// the first use of a module about a hundred instructions longer.)
    struct Sole {
        let type: ObjectIdentifier
        let creator: UncountedReference<BuildAgent>
    }
}

extension ComponentState {
    // A component usually creates one module at a time, which nobody waits for: that creation is
    // `soleModuleCreation`. It moves to `moduleCreations`, with a cell, when an agent comes to
    // wait for it; creations that overlap are kept there too.

    /// Whether no module is being created.
    var isCreatingNoModule: Bool { soleModuleCreation == nil && moduleCreations == nil }

    /// Whether the module of `type` is being created.
    func isCreatingModule(_ type: ObjectIdentifier) -> Bool {
        soleModuleCreation?.type == type || moduleCreations?.contains { $0.type == type } == true
    }

    /// What `agent`, asking for the module of `type` in the step `frame`, does next: `.create`
    /// when nobody creates it, after which the agent is recorded as its creator; otherwise what
    /// `ModuleCreation.next(for:frame:)` says.
    mutating func nextForCreatingModule(
        _ type: ObjectIdentifier, by agent: BuildAgent, frame: Frame
    ) -> ModuleCreation.Next {
        if let sole = soleModuleCreation, sole.type == type {
            if sole.creator.refers(to: agent) { return .cycle }
            // Someone waits for it now: it moves, to be given a cell.
            soleModuleCreation = nil
            moduleCreations = (moduleCreations ?? []) + [ModuleCreation(type: type, creator: sole.creator)]
        }
        if let index = moduleCreations?.firstIndex(where: { $0.type == type }) {
            return moduleCreations![index].next(for: agent, frame: frame)
        }
        let creator = UncountedReference(agent)
        if soleModuleCreation == nil {
            soleModuleCreation = ModuleCreation.Sole(type: type, creator: creator)
        } else {
            moduleCreations = (moduleCreations ?? []) + [ModuleCreation(type: type, creator: creator)]
        }
        return .create
    }

    /// Removes the record of the creation of the module of `type`, which is under way, and returns
    /// it if agents may wait for it, for the caller to complete once it has published the module.
    @inline(__always)
    mutating func finishCreatingModule(_ type: ObjectIdentifier) -> ModuleCreation? {
        if soleModuleCreation?.type == type {
            soleModuleCreation = nil
            return nil
        }
        return finishCreatingWaitedForModule(type)
    }

    /// `finishCreatingModule(_:)` for a creation in `moduleCreations`.
    private mutating func finishCreatingWaitedForModule(_ type: ObjectIdentifier) -> ModuleCreation? {
        guard let index = moduleCreations?.firstIndex(where: { $0.type == type }) else {
            preconditionFailure("Dirk internal error: a module's creation was not recorded")
        }
        let finished = moduleCreations!.remove(at: index)
        if moduleCreations!.isEmpty { moduleCreations = nil }
        return finished
    }

    /// The cell in which agents wait for the module of `type`, once one does.
    func cellOfWaiters(forCreatingModule type: ObjectIdentifier) -> ModuleCreation.Cell? {
        moduleCreations?.first { $0.type == type }?.cellOfWaiters
    }
}
