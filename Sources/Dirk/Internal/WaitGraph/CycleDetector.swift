/// Dirk's one cycle detector across agents: it follows the waits from an agent that is about to
/// wait for a build, through the build's builder and what that builder waits for, and so on.
///
/// Either the chain ends at an agent that is not waiting, which is making progress, or it comes
/// back to the caller: then every agent in it waits for the next and none can finish. A cycle on
/// one agent never gets here: a cell tells its own builder at once (`OnceStateMachine.claim`),
/// and a provider that caches nothing finds itself on its agent's stack.
///
/// **Stability.** The walk reads each link under its own lock, so the picture may mix moments. A
/// closed chain is checked a second time, link by link, and reported only if it is unchanged: every
/// agent in a real cycle is blocked, so a real cycle never changes, while a chain pieced together
/// from agents that moved on does, since each build's generation only grows.
package enum CycleDetector {
    /// One link of a closed chain: a build, and the agent that waits for it.
    package struct Link {
        package let waiter: BuildAgent
        package let target: WaitTarget
        package let build: BuildSnapshot

        /// Whether the waiter may take the build's instance as it is, which breaks the cycle: the
        /// instance exists, and the waiter waits for it rather than for its configuration.
        var mayTakeInstance: Bool { build.hasInstance && !target.forConfiguration }
    }

    /// What a closed chain of waits means for the agent that closed it.
    package enum Finding {
        /// The build the caller waits for has its instance already: the caller may take it as it
        /// is, as the builder's own thread would, which breaks the cycle.
        case takeInstance
        /// Another agent in the chain waits for a build whose instance exists; woken, it takes the
        /// instance and breaks the cycle.
        case wake(BuildAgent, WaitTarget)
        /// Every agent waits for an instance that does not exist yet.
        case cycle([Link])
    }

    /// The cycle that `agent`, which waits for `target` and has recorded it in `waitingFor`, closes;
    /// nil when the chain of waits ends at an agent that is making progress.
    package static func check(_ agent: BuildAgent, waitingFor target: WaitTarget) -> Finding? {
        guard let chain = chain(from: agent, waitingFor: target) else { return nil }
        #if DEBUG
        checkInvariants(of: chain, from: agent)
        #endif
        if chain[0].build.hasInstance { return .takeInstance }
        return chain.first(where: \.mayTakeInstance).map { .wake($0.waiter, $0.target) } ?? .cycle(chain)
    }

    /// For `agent`, which waits at its resolution's end until the build of `target` is
    /// configured: wakes the agent that may break the closed chain of waits it completes, if any.
    ///
    /// The caller can take nothing, but every build of its own is held with its instance, so the
    /// agent that waits for one of those (the chain's last link) may take it, which breaks the
    /// cycle.
    static func wakeAgentThatMayTake(_ agent: BuildAgent, waitingFor target: WaitTarget) {
        guard let link = chain(from: agent, waitingFor: target)?.dropFirst().last(where: \.mayTakeInstance)
        else { return }
        link.target.host.wakeToRecheck(link.waiter, at: link.target.key)
    }

    /// The closed chain of waits from `agent`, once checked a second time and found unchanged
    /// (`isUnchanged`), or nil when it ends at an agent that is not waiting.
    private static func chain(from agent: BuildAgent, waitingFor target: WaitTarget) -> [Link]? {
        var chain: [Link] = []
        var next: WaitTarget? = target
        while let target = next, let build = target.build {
            // Each link's waiter is the builder of the link before it.
            chain.append(Link(waiter: chain.last?.build.builder ?? agent, target: target, build: build))
            if build.builder === agent { return isUnchanged(chain) ? chain : nil }
            // A cycle among other agents, which one of them reports, or a chain that moved on.
            guard !chain.contains(where: { $0.waiter === build.builder }) else { return nil }
            next = build.builder.waitingFor
        }
        return nil
    }

    /// Whether every link still holds: each build still under way by the same builder, each
    /// waiter still waiting for the same build.
    private static func isUnchanged(_ chain: [Link]) -> Bool {
        chain.allSatisfy { link in
            let build = link.target.build
            return build?.builder === link.build.builder && build?.hasInstance == link.build.hasInstance
                && link.waiter.waitingFor?.isSame(as: link.target) == true
        }
    }

    /// Stops the program if `chain` is not a closed chain of waits from `agent`: each link's
    /// builder must be the next link's waiter, and the last link's builder `agent`.
    package static func checkInvariants(of chain: [Link], from agent: BuildAgent) {
        precondition(chain.first?.waiter === agent, "Dirk internal error: a chain not from its agent")
        for (link, next) in zip(chain, chain.dropFirst()) {
            precondition(link.build.builder === next.waiter, "Dirk internal error: a broken chain of waits")
        }
        precondition(chain.last?.build.builder === agent, "Dirk internal error: an open chain of waits")
    }

    /// The providers of a closed chain, from the build that the caller's own steps began with, as
    /// messages show them: `A.left() -> A.right() -> A.left()`.
    package static func path(of chain: [Link], from agent: BuildAgent) -> [Step] {
        // The caller builds the last link's instance; its steps from there lead to the first wait.
        let last = chain[chain.count - 1].build.step
        let others = chain.dropLast().flatMap { $0.build.builder.steps(from: $0.build.step) }
        return agent.steps(from: last) + others + [last]
    }
}
