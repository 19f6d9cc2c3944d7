import Dirk
import DirkTestSupport
import Testing

/// One rule for a `configure:` that cannot throw, reached inside another provider's factory,
/// whatever that provider's strategy: it waits until the factories running on the thread have
/// returned, then runs, newest first.
@Suite("A configure: reached inside any factory waits for it, whatever the factory's strategy")
struct ConfigureRuleTests {
    enum Outer: CaseIterable, Sendable {
        case transient, single, fresh
    }

    @Test(
        "configure: closures reached inside an outer factory run after it returns, newest first",
        arguments: Outer.allCases)
    func orderInsideAnOuterFactory(_ outer: Outer) {
        let component = RuleComponent()
        let nodes =
            switch outer {
            case .transient: component.ring.outer()
            case .single: component.ring.outerSingle()
            case .fresh: component.ring.fresh { $0.outerSingle() }
            }
        #expect(nodes.count == 2)
        let factory = outer == .transient ? "outer" : "outer single"
        #expect(
            component.log.withLock { $0 } == [
                "ox factory", "oy factory", "\(factory) end", "oy configure", "ox configure",
            ])
    }

    enum End: CaseIterable, Sendable {
        case single, transient
    }

    @Test("a ring through a transient resolves from either end", arguments: End.allCases)
    func ringThroughATransient(_ end: End) {
        let component = RuleComponent()
        let single: RuleNode =
            switch end {
            case .single: component.ring.ts()
            case .transient: component.ring.tt().next!
            }
        #expect(single === component.ring.ts(), "one instance of the single")
        #expect(single.next != nil, "its configure: ran before the outermost call returned")
        #expect(single.next?.next === single, "the transient it took refers back to it")
        // The ring is a cycle of strong references, which the test breaks so that nothing leaks.
        single.next?.next = nil
        single.next = nil
    }

    @Test(
        "a configure: waiting for a transient's factory that throws runs once it has thrown; ox stays cached")
    func configuredAfterAThrowingTransient() throws {
        let component = RuleComponent()
        #expect(throws: RuleError.self) { try component.ring.failingOuter() }
        #expect(component.log.withLock { $0 } == ["ox factory", "ox configure"], "ox's configure: ran")
        _ = component.ring.ox()
        #expect(component.log.withLock { $0 } == ["ox factory", "ox configure"], "ox was not built again")
    }
}

final class RuleNode: @unchecked Sendable {
    // Written by its `configure:` only, before any other thread can get the node.
    var next: RuleNode?

    init(_ next: RuleNode? = nil) { self.next = next }
}

struct RuleError: Error {}

final class RuleComponent: Component, @unchecked Sendable {
    let log = LockedBox<[String]>([])
    var ring: RuleModule { module() }

    func note(_ line: String) { log.withLock { $0.append(line) } }
}

final class RuleModule: Module<RuleComponent> {
    func ox() -> RuleNode {
        single { c in
            c.note("ox factory")
            return RuleNode()
        } configure: { _, c in
            c.note("ox configure")
        }
    }

    func oy() -> RuleNode {
        single { c in
            c.note("oy factory")
            return RuleNode()
        } configure: { _, c in
            c.note("oy configure")
        }
    }

    func outer() -> [RuleNode] {
        transient { c in
            let nodes = [c.ring.ox(), c.ring.oy()]
            c.note("outer end")
            return nodes
        }
    }

    func outerSingle() -> [RuleNode] {
        single { c in
            let nodes = [c.ring.ox(), c.ring.oy()]
            c.note("outer single end")
            return nodes
        }
    }

    func failingOuter() throws(RuleError) -> RuleNode {
        try transient { (c) throws(RuleError) in
            _ = c.ring.ox()
            throw RuleError()
        }
    }

    func ts() -> RuleNode {
        single { _ in
            RuleNode()
        } configure: { node, c in
            node.next = c.ring.tt()
        }
    }

    func tt() -> RuleNode {
        transient { c in RuleNode(c.ring.ts()) }
    }
}
