import Dirk
import DirkTestSupport
import Testing

@Suite("The cycle detector over the wait graph")
struct CycleDetectorTests {
    @Test("a chain of waits that ends at an agent that is not waiting is no cycle")
    func openChain() {
        let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b, c) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
        let y = ScriptedHost(builtBy: c, step: makeStep("y()"))
        a.waitingFor = x.target
        #expect(CycleDetector.check(a, waitingFor: x.target).summary == .none)
        b.waitingFor = y.target
        #expect(CycleDetector.check(a, waitingFor: x.target).summary == .none)
        #expect(x.woken.isEmpty && y.woken.isEmpty)
    }

    @Test("a chain that reaches a build that has ended is no cycle")
    func endedBuild() {
        let (a, b) = (BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
        let y = ScriptedHost(builtBy: a, step: makeStep("y()"))
        a.waitingFor = x.target
        b.waitingFor = y.target
        #expect(CycleDetector.check(a, waitingFor: x.target).summary != .none, "closed while both builds run")
        let stale = y.target
        y.restart(by: a)
        b.waitingFor = stale
        #expect(
            CycleDetector.check(a, waitingFor: x.target).summary == .none,
            "b waits for a generation that ended")
        let staleX = x.target
        x.restart(by: b)
        a.waitingFor = staleX
        #expect(
            CycleDetector.check(a, waitingFor: staleX).summary == .none, "a waits for a generation that ended"
        )
    }

    @Test("two agents that wait for each other's builds close a cycle, reported from either in order")
    func twoAgentCycle() {
        let (a, b) = (BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"), earlierBuilds: 2)
        let y = ScriptedHost(builtBy: a, step: makeStep("y()"), earlierBuilds: 4)
        a.waitingFor = x.target
        b.waitingFor = y.target
        guard case .cycle(let chain) = CycleDetector.check(a, waitingFor: x.target) else {
            Issue.record("a closed chain with no instance must be a cycle")
            return
        }
        CycleDetector.checkInvariants(of: chain, from: a)
        #expect(chain.map { ObjectIdentifier($0.waiter) } == identities(a, b))
        #expect(chain.map { ObjectIdentifier($0.build.builder) } == identities(b, a))
        #expect(chain.map { ObjectIdentifier($0.target.host) } == identities(x, y))
        #expect(chain.map(\.target.key) == [x.key, y.key])
        #expect(chain.map(\.target.generation) == [x.generation, y.generation])
        #expect(chain.map(\.build.step.name) == ["Item.x()", "Item.y()"])
        #expect(chain.allSatisfy { !$0.build.hasInstance })
        guard case .cycle(let fromB) = CycleDetector.check(b, waitingFor: y.target) else {
            Issue.record("the same cycle seen from b must be a cycle")
            return
        }
        CycleDetector.checkInvariants(of: fromB, from: b)
        #expect(fromB.map { ObjectIdentifier($0.waiter) } == identities(b, a))
        #expect(x.woken.isEmpty && y.woken.isEmpty, "the detector reports; it wakes no one")
    }

    @Test("three agents that wait for each other's builds close a cycle, reported in order")
    func threeAgentCycle() {
        let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b, c) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
        let y = ScriptedHost(builtBy: c, step: makeStep("y()"))
        let z = ScriptedHost(builtBy: a, step: makeStep("z()"))
        a.waitingFor = x.target
        b.waitingFor = y.target
        c.waitingFor = z.target
        guard case .cycle(let chain) = CycleDetector.check(a, waitingFor: x.target) else {
            Issue.record("a closed chain with no instance must be a cycle")
            return
        }
        CycleDetector.checkInvariants(of: chain, from: a)
        #expect(chain.map { ObjectIdentifier($0.waiter) } == identities(a, b, c))
        #expect(chain.map { ObjectIdentifier($0.build.builder) } == identities(b, c, a))
        #expect(chain.map { ObjectIdentifier($0.target.host) } == identities(x, y, z))
    }

    @Test("when the build the caller waits for has its instance, the caller takes it")
    func takeInstance() {
        let (a, b) = (BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"), hasInstance: true)
        let y = ScriptedHost(builtBy: a, step: makeStep("y()"), hasInstance: true)
        a.waitingFor = x.target
        b.waitingFor = y.target
        #expect(CycleDetector.check(a, waitingFor: x.target).summary == .takeInstance)
    }

    @Test("when a later build in the chain has its instance, that link's waiter is to be woken")
    func wakeLaterWaiter() {
        let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b, c) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
        let y = ScriptedHost(builtBy: c, step: makeStep("y()"), earlierBuilds: 1, hasInstance: true)
        let z = ScriptedHost(builtBy: a, step: makeStep("z()"), hasInstance: true)
        a.waitingFor = x.target
        b.waitingFor = y.target
        c.waitingFor = z.target
        let finding = CycleDetector.check(a, waitingFor: x.target)
        // The first link with an instance after the caller's: b, waiting for y.
        #expect(
            finding.summary
                == .wake(agent: ObjectIdentifier(b), host: ObjectIdentifier(y), generation: y.generation))
        guard case .wake(let agent, let target) = finding else { return }
        #expect(
            x.woken.isEmpty && y.woken.isEmpty && z.woken.isEmpty, "the detector reports; it wakes no one")
        target.host.wakeToRecheck(agent, at: target.key)
        #expect(y.woken.map(ObjectIdentifier.init) == identities(b))
    }

    @Test("a closed chain that changed between the two looks is no cycle", arguments: ChainChange.allCases)
    func changedChain(change: ChainChange) {
        let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b, c) }
        let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
        let y = ScriptedHost(builtBy: a, step: makeStep("y()"))
        a.waitingFor = x.target
        b.waitingFor = y.target
        // The walk looks at x, then y; the second look at x is the first of the check that the chain
        // is unchanged, and comes before it reads b's wait.
        x.beforeLook[2] = { x in
            switch change {
            case .none: break
            case .buildEnded: x.endBuild()
            case .instanceAppeared: x.holdInstance()
            case .builderChanged: x.replaceBuilder(with: c)
            case .waiterMovedOn: b.waitingFor = ScriptedHost(builtBy: c, step: makeStep()).target
            case .waiterStopped: b.waitingFor = nil
            }
        }
        let finding = CycleDetector.check(a, waitingFor: x.target)
        #expect(x.looks == 2)
        if change == .none {
            #expect(finding.summary == .cycle(waiters: identities(a, b)))
        } else {
            #expect(finding.summary == .none)
        }
    }

    @Test("a chain that runs into a cycle of other agents ends, with no finding for the caller")
    func cycleOfOthers() {
        let finding = LockedBox<FindingSummary?>(nil)
        withWatchdog {
            let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
            defer { endWaits(a, b, c) }
            let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
            let y = ScriptedHost(builtBy: c, step: makeStep("y()"))
            let z = ScriptedHost(builtBy: b, step: makeStep("z()"))
            a.waitingFor = x.target
            b.waitingFor = y.target
            c.waitingFor = z.target
            let summary = CycleDetector.check(a, waitingFor: x.target).summary
            finding.withLock { $0 = summary }
        }
        #expect(finding.withLock { $0 } == FindingSummary.none)
    }

    @Test("the path of a cycle begins and ends with the build the caller runs, as messages show it")
    func path() {
        let (a, b, c) = (BuildAgent.standalone(), BuildAgent.standalone(), BuildAgent.standalone())
        defer { endWaits(a, b, c) }
        // a builds left(), which needs middle(), built by b, which needs right(), built by c, which
        // needs left().
        let middle = ScriptedHost(builtBy: b, step: makeStep("middle()"))
        let right = ScriptedHost(builtBy: c, step: makeStep("right()"))
        let left = ScriptedHost(builtBy: a, step: makeStep("left()"))
        a.waitingFor = middle.target
        b.waitingFor = right.target
        c.waitingFor = left.target
        guard case .cycle(let chain) = CycleDetector.check(a, waitingFor: middle.target) else {
            Issue.record("a closed chain with no instance must be a cycle")
            return
        }
        #expect(
            CycleDetector.path(of: chain, from: a).map(\.name)
                == ["Item.left()", "Item.middle()", "Item.right()", "Item.left()"])
        guard case .cycle(let fromC) = CycleDetector.check(c, waitingFor: left.target) else {
            Issue.record("the same cycle seen from c must be a cycle")
            return
        }
        #expect(
            CycleDetector.path(of: fromC, from: c).map(\.name)
                == ["Item.right()", "Item.left()", "Item.middle()", "Item.right()"])
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("checking a chain from an agent that does not close it stops the program")
    func invariantsCatchForeignAgent() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (a, b) = (BuildAgent.standalone(), BuildAgent.standalone())
            let x = ScriptedHost(builtBy: b, step: makeStep("x()"))
            let y = ScriptedHost(builtBy: a, step: makeStep("y()"))
            a.waitingFor = x.target
            b.waitingFor = y.target
            guard case .cycle(let chain) = CycleDetector.check(a, waitingFor: x.target) else { return }
            CycleDetector.checkInvariants(of: chain, from: b)
        }
        #if DEBUG
        let message = standardError(of: result)
        #expect(message.contains("Dirk internal error: a chain not from its agent"), "\(message)")
        #else
        _ = result
        #endif
    }
    #endif
}

// MARK: Helpers

/// Ends the agents' waits, as real agents do when a wait ends: agents that wait for each other's
/// builds hold each other through their waits and the builds' builders.
private func endWaits(_ agents: BuildAgent...) {
    for agent in agents { agent.waitingFor = nil }
}

/// How a closed chain changes between the detector's two looks at it.
enum ChainChange: CaseIterable {
    case none
    case buildEnded
    case instanceAppeared
    case builderChanged
    case waiterMovedOn
    case waiterStopped
}

/// A host of one cell whose build the test sets up, for the wait graph: a real state machine,
/// claimed by the builder, answers the detector; a script can change the build just before a given
/// look; and the host records whom it was asked to wake.
final class ScriptedHost: WaitableHost {
    private var machine = OnceStateMachine()
    /// The numbers the host gives builds, as a host's serials.
    private var serials: UInt64 = 0
    private var builder: BuildAgent
    private let step: Step
    /// The key of the host's one cell.
    let key = CellKey.standalone(ObjectIdentifier(Item.self))
    /// How many times the detector has looked at the cell's build.
    private(set) var looks = 0
    /// What to do just before the look of each number (the first is 1) answers.
    var beforeLook: [Int: (ScriptedHost) -> Void] = [:]
    /// The agents the host was asked to wake, in order.
    private(set) var woken: [BuildAgent] = []

    /// A host whose cell's build runs on `builder`, after `earlierBuilds` builds that failed, and
    /// holds its instance if `hasInstance`.
    init(builtBy builder: BuildAgent, step: Step, earlierBuilds: Int = 0, hasInstance: Bool = false) {
        self.builder = builder
        self.step = step
        _ = machine.claim(by: builder, step: step, serials: &serials)
        for _ in 0..<earlierBuilds { restart(by: builder) }
        if hasInstance { holdInstance() }
    }

    /// The generation of the build under way.
    var generation: UInt64 {
        guard let build = machine.build else { return 0 }
        return build.generation
    }

    /// What an agent waiting for the build under way waits for.
    var target: WaitTarget { WaitTarget(host: self, key: key, generation: generation) }

    /// Gives the build under way its instance.
    func holdInstance() {
        machine.holdInstance(Item(), generation: generation)
    }

    /// Ends the build under way without a value.
    func endBuild() {
        _ = machine.fail(generation: generation, telling: .finished(.failure(TestFailure(0))))
    }

    /// Ends the build under way and starts the next generation's, on `agent`.
    func restart(by agent: BuildAgent) {
        endBuild()
        builder = agent
        _ = machine.claim(by: agent, step: step, serials: &serials)
    }

    /// Makes the build under way, of the same generation, run on `agent`, which no real host does:
    /// the host numbers the new build as the one it replaces.
    func replaceBuilder(with agent: BuildAgent) {
        let generation = generation
        machine = OnceStateMachine()
        serials = generation &- 1
        _ = machine.claim(by: agent, step: step, serials: &serials)
        #expect(self.generation == generation, "the replaced build must keep its generation")
        builder = agent
    }

    func build(at key: CellKey, generation: UInt64) -> BuildSnapshot? {
        looks += 1
        beforeLook[looks]?(self)
        guard key == self.key else { return nil }
        return machine.build(ofGeneration: generation)
    }

    func wakeToRecheck(_ agent: BuildAgent, at key: CellKey) {
        if key == self.key { woken.append(agent) }
    }
}

/// A finding as a comparable summary: agents and hosts by identity.
enum FindingSummary: Equatable, Sendable {
    case none
    case takeInstance
    case wake(agent: ObjectIdentifier, host: ObjectIdentifier, generation: UInt64)
    case cycle(waiters: [ObjectIdentifier])
}

extension CycleDetector.Finding? {
    var summary: FindingSummary {
        switch self {
        case nil: .none
        case .takeInstance: .takeInstance
        case .wake(let agent, let target):
            .wake(
                agent: ObjectIdentifier(agent), host: ObjectIdentifier(target.host),
                generation: target.generation)
        case .cycle(let chain): .cycle(waiters: chain.map { ObjectIdentifier($0.waiter) })
        }
    }
}
