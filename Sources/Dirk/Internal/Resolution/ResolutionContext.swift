/// One thread's resolution: the steps it is inside, the objects it keeps alive until it ends, and
/// what it must do when it ends. A thread's agent in the wait graph.
///
/// A resolution begins when a thread calls a provider while inside none, and ends when that
/// outermost call returns. Until then it keeps every component it entered alive (one reference
/// each, taken on entry), so that deeper calls into the same component count no references.
@usableFromInline package final class ResolutionContext: BuildAgent, @unchecked Sendable {
    // Everything below belongs to the context's own thread, which alone reads and writes it, with
    // one exception: another agent reads `steps` to describe a cycle (see `BuildAgent.steps`).
    // Swift's run-time exclusivity checks, which cost more than the accesses themselves and which
    // one thread's accesses cannot fail, are turned off for these variables.

    /// The steps this thread is inside, outermost first.
    @usableFromInline @exclusivity(unchecked) var stack = StepStack<Frame>()
    /// Objects kept alive until the resolution ends, each by one reference.
    @usableFromInline @exclusivity(unchecked) var held: [AnyObject] = []
    /// Builds finished while a `configure:` closure ran on this thread, or after the resolution
    /// took another agent's half-configured instance, published when the resolution ends (see
    /// `OnceCell.resolve`), with their steps.
    @exclusivity(unchecked) private var heldBuilds: [HeldBuildRecord] = []
    private typealias HeldBuildRecord = (
        cell: any HeldBuild, generation: UInt64, frame: Frame, isHeldForConfiguring: Bool
    )
    /// Builds of other agents whose instance this resolution took while they were being
    /// configured, each with the mark from which the builds it holds may refer to that instance
    /// (see `waitWhenResolutionEnds(for:)`). The resolution waits until they, and the builds they
    /// depend on, are configured before it ends; if one fails instead, it drops those builds.
    @exclusivity(unchecked) @usableFromInline private(set) var borrowed:
        [(record: BuildRecord, heldMark: Int)] =
            []
    /// Whether `leave()` at depth zero has work beyond popping.
    @usableFromInline @exclusivity(unchecked) var hasEndWork = false

    /// The store of the `scoped` instances of the resolution under way, once a `scoped` provider
    /// asked for it: the store of the async resolution that it runs a part of, or `ownScopes`.
    @exclusivity(unchecked) private var scopes: ScopeStore?
    /// The store of this thread's own resolutions, which run a part of no async one: made on first
    /// need, kept from one resolution to the next, and emptied when each ends.
    @exclusivity(unchecked) private var ownScopes: ScopeStore?
    /// The cells of a shared store that the resolution under way used, which it keeps until it
    /// ends (see `scopedCell(owner:key:)`).
    @exclusivity(unchecked) private var keptSharedCells = InlineList<ScopeStore.Entry>()
    /// How many `configure:` closures are running on this thread.
    @usableFromInline @exclusivity(unchecked) var configurationDepth = 0
    /// The builds in cells whose `configure:` closures are running on this thread, outermost
    /// first: what an instance built meanwhile may refer to half-configured. Each with what the
    /// resolution held when its `configure:` began: what it held since may refer to it.
    @usableFromInline @exclusivity(unchecked) var configuring:
        [(record: BuildRecord, mark: ConfigurationMark)] =
            []

    /// How many builds, and how many `scoped` instances of its own (`ownScopes`), the resolution
    /// held when a `configure:` closure began.
    @usableFromInline struct ConfigurationMark {
        let heldBuilds: Int
        let ownScoped: Int
    }

    /// The module that `fresh(_:)` asked for fresh instances, and the depth of its providers.
    @usableFromInline @exclusivity(unchecked) var freshRequest: (module: ObjectIdentifier, depth: Int)?
    /// The traces under way on this thread, outermost first: a trace begun inside another's
    /// closure is under way in both.
    @exclusivity(unchecked) var traces: [Trace] = []
    /// The observed provider calls under way on this thread, innermost last: each one's provider;
    /// what records its dependencies (the locks and states of the recording components that the
    /// call is made for); and the index its step has, or will have, on the stack (the depth when it
    /// was observed), in the resolution of that number (`endedResolutions` then).
    @exclusivity(unchecked) var observedCalls:
        [(provider: ProviderIdentity, recorders: [AnyObject], stepIndex: Int, resolution: UInt64)] = []
    /// How many resolutions with work at their end have ended on this thread: what tells a call
    /// that a deinitializer makes at a resolution's end, whose steps start again at the bottom of
    /// the stack, from a call of the resolution that is ending.
    @exclusivity(unchecked) var endedResolutions: UInt64 = 0

    /// A trace of the observed provider calls made on this thread into some components.
    struct Trace {
        /// The components whose providers' calls the trace shows, by identity.
        let components: [UInt]
        /// How many observed calls were under way when the trace began: it shows none of them.
        let firstCall: Int
        var lines: [String] = []

        /// Whether the trace shows the calls of providers of the component whose identity is
        /// `component`.
        func shows(_ component: UInt) -> Bool { components.contains(component) }
    }
    /// Set while `overriding(_:with:)` finds out which provider its closure calls.
    @usableFromInline @exclusivity(unchecked) var capture: OverrideCapture?
    /// The keys of the `single(key:)` steps on this thread's stack, innermost last, each with the
    /// owner of its frame (the key's cell): what a cycle's message names them by. Only keyed
    /// providers push here.
    @exclusivity(unchecked) var keyedSteps: [(owner: UInt, key: AnyHashable)] = []

    /// The keys of the `single(key:)` steps on this thread's stack, by their frames' owners, for
    /// messages.
    @usableFromInline static var stepKeys: [UInt: AnyHashable] {
        Dictionary(current.keyedSteps.map { ($0.owner, $0.key) }, uniquingKeysWith: { $1 })
    }

    @usableFromInline override init() {}

    deinit {
        stack.deallocate()
    }

    /// How many steps deep the thread is: zero outside any resolution.
    @inlinable var depth: Int { stack.depth }

    /// Whether a provider of `module` called now answers `fresh(_:)`'s request: its instance is
    /// built anew and cached nowhere.
    func isFreshRequest(for module: ObjectIdentifier) -> Bool {
        guard let request = freshRequest else { return false }
        return request.module == module && request.depth == depth
    }

    /// The calling thread's context, made on its first resolution and released when it exits.
    @inlinable
    package static var current: ResolutionContext {
        ThreadContext.current(ResolutionContext.init)
    }

    /// Runs `body` with the calling thread's context, lent without a reference count of its own.
    @inlinable
    package static func withCurrent<Result>(_ body: (ResolutionContext) throws -> Result) rethrows -> Result {
        try ThreadContext.withCurrent(ResolutionContext.init, body)
    }

    /// Whether a `configure:` closure is running on this thread.
    @usableFromInline var isConfiguring: Bool { configurationDepth > 0 }

    /// Whether a call made now is made directly by the step at `index` of the resolution
    /// numbered `resolution` (see `observedCalls`): that resolution is still under way, and no
    /// provider's step lies between them on the stack, such as one of a module that nobody
    /// observes, nor a key's hashing, which runs before its provider is observed. (Handles' and
    /// module creations' steps do not count: they pass the call on.)
    func isCalledDirectly(byStepAt index: Int, inResolution resolution: UInt64) -> Bool {
        guard index < depth, resolution == endedResolutions else { return false }
        return (index + 1..<depth).allSatisfy {
            stack[$0].kind != .provider && stack[$0].kind != .keyHashing
        }
    }

    /// Whether a build that ends now must be held until the resolution ends: a `configure:`
    /// closure of an enclosing step still runs on this thread, or the resolution took another
    /// agent's half-configured instance; the build's value may refer to either.
    @usableFromInline var mustHoldNewBuilds: Bool { isConfiguring || !borrowed.isEmpty }

    /// The builds that an instance held now may refer to half-configured (see `mustHoldNewBuilds`).
    @usableFromInline var dependenciesOfHeldBuild: [BuildRecord] {
        borrowed.map(\.record) + configuring.map(\.record)
    }

    /// Records that the `configure:` closure of the build `record` begins on this thread; returns
    /// what the resolution holds now, the mark after which what it holds may refer to the
    /// instance. Pair every call with `endConfiguring()`.
    @usableFromInline func beginConfiguring(_ record: BuildRecord) -> ConfigurationMark {
        let mark = ConfigurationMark(heldBuilds: heldBuilds.count, ownScoped: ownScopes?.count ?? 0)
        configurationDepth += 1
        configuring.append((record, mark))
        return mark
    }

    /// Records that the innermost `configure:` closure running on this thread has returned or
    /// thrown.
    @usableFromInline func endConfiguring() {
        configurationDepth -= 1
        configuring.removeLast()
    }

    // MARK: Steps

    /// Enters the step `frame`. Pair every call with `leave()`.
    @inlinable @inline(__always)
    func enter(_ frame: Frame) {
        enter { frame }
    }

    /// Enters the step whose frame `makeFrame` makes, built in place on the stack.
    @inlinable @inline(__always)
    func enter(_ makeFrame: () -> Frame) {
        stack.push(makeFrame)
    }

    /// The frame of the step entered last.
    @inlinable var topFrame: Frame { stack[depth &- 1] }

    /// The frame of `frame`'s step if it is already on the stack.
    @inlinable @inline(__always)
    func enclosing(_ frame: Frame) -> Frame? {
        stack.lastIndex(ofSameAs: frame).map { stack[$0] }
    }

    /// Enters the step `frame` of a provider that caches nothing (a `transient`, or a fresh
    /// instance); stops the program with the path if the same step is under way already, which
    /// would recurse without end.
    @inline(__always)
    func enterUncached(_ frame: Frame) {
        enterUncached { frame }
    }

    /// `enterUncached(_:)` with the frame that `makeFrame` makes, built in place on the stack and
    /// then compared with the frames below it.
    @usableFromInline @inline(__always)
    func enterUncached(_ makeFrame: () -> Frame) {
        stack.push(makeFrame)
        if let index = stack.indexOfTopBelowItself() { stopRecursion(at: index) }
    }

    /// Enters the step `frame` of a handle that resolves anew on every call (a `Provider`); stops
    /// the program with the path if the same handle's step is under way below it with no caching
    /// provider's build between them, which would recurse without end. (Through such a build, the
    /// call ends in that provider's cell.)
    func enterHandle(_ frame: Frame) {
        stack.push { frame }
        // The nearest: a caching build above it is above every older one too.
        if let index = stack.indexOfTopBelowItself(),
            !(index + 1..<depth - 1).contains(where: { stack[$0].isCachingBuild })
        {
            stopRecursion(at: index)
        }
    }

    /// Stops the program with the path from the step at `index` to the top one, the same step.
    @usableFromInline @inline(never)
    func stopRecursion(at index: Int) -> Never {
        let (enclosing, frame) = (stack[index], topFrame)
        // On the way to stopping the program: no call returns.
        _ = leave()
        Diagnostics.recursion(
            path: steps(from: enclosing) + [frame], at: frame, keys: ResolutionContext.stepKeys)
    }

    /// Leaves the step entered last; when it was the outermost, ends the resolution, and returns
    /// why its outermost call must throw instead of returning its value, if it must (see
    /// `ResolutionEndFailure`). A step left on its way to throwing ignores that.
    @inlinable @inline(__always)
    func leave() -> ResolutionEndFailure? {
        stack.pop()
        if depth == 0 && hasEndWork { return endResolution() }
        return nil
    }

    @usableFromInline package override func steps(from frame: Frame) -> [Frame] {
        let all = stack.all
        return Array(all[(all.lastIndex { $0.isSame(as: frame) } ?? all.endIndex)...])
    }

    /// The cell of the `scoped` provider at `key` of `owner` in the resolution under way, made on
    /// its first call in the resolution.
    ///
    /// The store is the async resolution's that this thread runs a part of, if any, or else this
    /// thread's own (`ownScopes`). The choice is kept until the resolution ends, which `leave()`
    /// sees at depth zero; a synchronous resolution runs in one task from its start to its end. A
    /// shared store found outside any step (depth zero) is not kept: with no step entered there
    /// may be no end, and the thread's next resolution, of another task or of none, would find it.
    /// A cell of a shared store is kept by this resolution until it ends, so that the provider
    /// gives it one instance even if the async resolution that the store belongs to ends meanwhile
    /// (in a `Task { }` that outlives it) and releases its instances.
    func scopedCell(owner: AnyObject, key: ProviderKey) -> OnceCell {
        if let scopes, scopes === ownScopes { return scopes.cell(owner: owner, key: key) }
        guard let shared = scopes ?? TaskAgent.scopesOfCurrentTask else {
            let own = ownScopes ?? ScopeStore.make()
            ownScopes = own
            scopes = own
            hasEndWork = true
            return own.cell(owner: owner, key: key)
        }
        if let kept = keptSharedCells.first(where: { $0.owner === owner && $0.key == key }) {
            return kept.cell
        }
        let cell = shared.cell(owner: owner, key: key)
        keep(cell, of: owner, key: key, from: shared)
        return cell
    }

    /// The cell of the `scoped` provider at `key` of `owner` in the resolution under way, if it
    /// has one, for traces.
    func existingScopedCell(owner: AnyObject, key: ProviderKey) -> OnceCell? {
        if let kept = keptSharedCells.first(where: { $0.owner === owner && $0.key == key }) {
            return kept.cell
        }
        return (scopes ?? TaskAgent.scopesOfCurrentTask ?? ownScopes)?.existingCell(owner: owner, key: key)
    }

    /// Makes the resolution under way keep `cell` of a shared `store`, the cell of the provider at
    /// `key` of `owner`, and `store` as its scope if it has none yet. Only inside a step, whose
    /// resolution will end to release them: a cell that an outermost call found outside any step
    /// is kept from the step that builds it on.
    func keepIfShared(_ cell: OnceCell, of owner: AnyObject, key: ProviderKey) {
        guard depth > 0, let store = scopes ?? TaskAgent.scopesOfCurrentTask, store !== ownScopes else {
            return
        }
        keep(cell, of: owner, key: key, from: store)
    }

    private func keep(_ cell: OnceCell, of owner: AnyObject, key: ProviderKey, from store: ScopeStore) {
        guard depth > 0 else { return }
        if scopes == nil {
            scopes = store
            hasEndWork = true
        }
        guard scopes === store, keptSharedCells.first(where: { $0.owner === owner && $0.key == key }) == nil
        else {
            return
        }
        keptSharedCells.append(ScopeStore.Entry(owner: owner, key: key, cell: cell))
        hasEndWork = true
    }

    // MARK: Objects kept alive

    /// Whether the resolution keeps the object whose identity is `identity` alive.
    @inlinable
    func holds(_ identity: UInt) -> Bool {
        held.contains { UInt(bitPattern: ObjectIdentifier($0)) == identity }
    }

    /// Keeps `object` alive until the resolution ends. Call it only inside a step.
    @inlinable func hold(_ object: AnyObject) {
        held.append(object)
        hasEndWork = true
    }

    // MARK: Ending the resolution

    /// Publishes `cell`'s build of generation `generation`, made in the step `frame`, when the
    /// resolution ends.
    @usableFromInline func publishWhenResolutionEnds(_ cell: any HeldBuild, generation: UInt64, frame: Frame)
    {
        heldBuilds.append((cell, generation, frame, isConfiguring))
        hasEndWork = true
    }

    /// Drops what the resolution built since `mark`, while a `configure:` closure that has now
    /// thrown `failure` ran, and which may refer to its instance: the builds it holds, and the
    /// `scoped` instances of its own, which the provider builds anew if it is asked again.
    @usableFromInline func dropBuilds(since mark: ConfigurationMark, because failure: BuildFailure) {
        dropHeldBuilds(since: mark.heldBuilds, because: failure)
        // Released after they are out of the store: deinitializers may run user code.
        if let ownScopes, scopes === ownScopes {
            ownScopes.releaseCells(from: mark.ownScoped)
        }
    }

    /// Ends, instead of publishing them, the builds held since `mark`: built while a `configure:`
    /// closure that has now thrown ran, or after the resolution took an instance whose build then
    /// failed (`failure` tells which), they may refer to an instance that is dropped, so none of
    /// them may be kept. Their own builds did not fail: their waiters look again, and build anew.
    /// A resolution that took one of their instances learns of `failure`.
    @usableFromInline func dropHeldBuilds(since mark: Int, because failure: BuildFailure) {
        guard heldBuilds.count > mark else { return }
        let dropped = heldBuilds[mark...]
        heldBuilds.removeSubrange(mark...)
        // A build taken after the dropped ones were held is followed, from now on, by the builds
        // held from `mark` on.
        for index in borrowed.indices where borrowed[index].heldMark > mark {
            borrowed[index].heldMark = mark
        }
        for build in dropped.reversed() { build.cell.drop(generation: build.generation, because: failure) }
    }

    /// The step of a provider's cached instance of the component `component` (its identity) that
    /// this resolution holds until it ends because a `configure:` closure ran when it was built, if
    /// there is one: the thread has the instance already, which others do not have yet. (Handles'
    /// and `scoped` instances, which no reset drops, and builds held only because the resolution
    /// took another thread's half-configured instance, which depends on timing, are not counted.)
    func heldBuild(ofComponent component: UInt) -> Frame? {
        heldBuilds.first {
            $0.isHeldForConfiguring && $0.frame.component == component && $0.frame.kind == .provider
                && $0.frame.strategy.isCached
        }?.frame
    }

    /// Waits, when the resolution ends, until the build `record`, whose instance the resolution
    /// took, and every build it depends on, is configured.
    @usableFromInline func waitWhenResolutionEnds(for record: BuildRecord) {
        // What may refer to the instance: what the resolution holds from now on, and what it
        // held since the outermost `configure:` still running began, whose instance may come to
        // refer to this one, as may what was built in it.
        borrowed.append((record, configuring.first?.mark.heldBuilds ?? heldBuilds.count))
        hasEndWork = true
    }

    @inline(never)
    @usableFromInline func endResolution() -> ResolutionEndFailure? {
        hasEndWork = false
        endedResolutions &+= 1
        var failure: ResolutionEndFailure?
        if !heldBuilds.isEmpty || !borrowed.isEmpty || scopes != nil || !keptSharedCells.isEmpty {
            failure = finishBuildsAndScopes()
        }
        // Released last, outside any lock: deinitializers may run user code, even resolve again on
        // this thread, which then starts a resolution of its own (and may end this one's loop).
        while let object = held.popLast() { _ = consume object }
        return failure
    }

    /// The part of a resolution's end that only resolutions which configured, borrowed or made
    /// `scoped` instances have; returns the failure of a build whose instance the resolution took,
    /// if one failed.
    private func finishBuildsAndScopes() -> ResolutionEndFailure? {
        // First the builds this resolution took instances from while they were being configured,
        // and the builds those depend on, in turn, until every one is configured: the instances
        // this resolution returns, and those it published, may refer to any of them. Only then
        // what it held back, so that no other agent sees an instance before all it may refer to
        // is configured. (An agent waiting for a held instance meanwhile takes it as it is, and
        // waits in turn; see `OnceCell.waitUntilConfigured`.)
        //
        // A build among them may fail instead: its `configure:` threw, or an enclosing one did.
        // (A configured build ends without a value only when one it depends on fails, and every
        // failure starts at a `configure:` that threw, whose build is never configured: so once all
        // are configured, none of them can fail.) What this resolution held since it took the
        // instance that led to the failure may refer to a dropped instance: it is dropped too, and
        // the outermost call, whose value may refer to it as well, throws.
        // (Only a resolution that took an instance walks: the others skip the walk's lists. Speed
        // only.)
        let failure = borrowed.isEmpty ? nil : dropBuildsOfFailedBorrows()
        while !heldBuilds.isEmpty {
            let ready = heldBuilds
            heldBuilds = []
            for build in ready { build.cell.publish(generation: build.generation) }
        }
        // A shared store is the async resolution's, which ends it. The thread's own `scoped`
        // instances go last, outside any lock: deinitializers may run user code, even resolve
        // again on this thread, which then starts a resolution of its own.
        let ended = scopes
        scopes = nil
        hasEndWork = false
        if let ended, ended === ownScopes { ended.releaseCells(from: 0) }
        // Only a resolution that is part of an async one keeps shared cells. (Checked first, so
        // that the others skip the list's release. Speed only.)
        if !keptSharedCells.isEmpty {
            let sharedCells = keptSharedCells.removeAllElements()
            withExtendedLifetime(sharedCells) {}
        }
        return failure
    }

    /// Waits until every build whose instance the resolution took, and every build those depend on,
    /// is configured; if one failed instead, drops what the resolution held since the earliest
    /// taking that led to a failure, and returns the first failure.
    private func dropBuildsOfFailedBorrows() -> ResolutionEndFailure? {
        let borrowed = self.borrowed
        self.borrowed = []
        var failure: ResolutionEndFailure?
        var failedSince = heldBuilds.count
        var outcomes: [BuildRecord: ConfigurationOutcome] = [:]
        for (record, heldMark) in borrowed {
            if let failed = firstFailure(reachableFrom: record, outcomes: &outcomes) {
                failure = failure ?? ResolutionEndFailure(failure: failed)
                failedSince = min(failedSince, heldMark)
            }
        }
        if let failure { dropHeldBuilds(since: failedSince, because: failure.failure) }
        return failure
    }

    /// Waits until the build `record` and every build it depends on, in turn, is configured, and
    /// returns the first failure among them, if one failed instead. `outcomes` holds how the builds
    /// already waited for stood, which are not waited for again; each walk follows every build it
    /// reaches, since a build found configured by another walk may depend on one that failed.
    private func firstFailure(
        reachableFrom record: BuildRecord, outcomes: inout [BuildRecord: ConfigurationOutcome]
    ) -> BuildFailure? {
        var pending = [record]
        var seen: Set<BuildRecord> = []
        while let build = pending.popLast() {
            guard seen.insert(build).inserted else { continue }
            let outcome = outcomes[build] ?? build.cell.waitUntilConfigured(build, as: self)
            outcomes[build] = outcome
            switch outcome {
            case .configured(let dependencies): pending += dependencies
            case .failed(let failed): return failed
            }
        }
        return nil
    }
}

extension UnownedReference {
    /// Makes `context` keep the object alive until its resolution ends, unless it does already;
    /// returns false, changing nothing, if the object has begun to deinitialize. Call it inside a
    /// step of the resolution.
    @inlinable @inline(__always)
    func holdIfAlive(in context: ResolutionContext) -> Bool {
        if context.holds(identity) { return true }
        guard let object = strongIfAlive() else { return false }
        context.hold(object)
        return true
    }
}
