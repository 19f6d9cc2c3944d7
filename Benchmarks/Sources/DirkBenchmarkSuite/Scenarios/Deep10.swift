import Dirk
import Swinject

/// `deep10`: a chain of 10 transients, `Node10` → `Node9` → … → `Node1`, ending in the cached
/// singleton `Node0`. One operation resolves `Node10`, which builds ten new objects.
enum Deep10Scenario {
    final class Node0: Sendable {}

    final class Node1: Sendable {
        let next: Node0

        init(next: Node0) {
            self.next = next
        }
    }

    final class Node2: Sendable {
        let next: Node1

        init(next: Node1) {
            self.next = next
        }
    }

    final class Node3: Sendable {
        let next: Node2

        init(next: Node2) {
            self.next = next
        }
    }

    final class Node4: Sendable {
        let next: Node3

        init(next: Node3) {
            self.next = next
        }
    }

    final class Node5: Sendable {
        let next: Node4

        init(next: Node4) {
            self.next = next
        }
    }

    final class Node6: Sendable {
        let next: Node5

        init(next: Node5) {
            self.next = next
        }
    }

    final class Node7: Sendable {
        let next: Node6

        init(next: Node6) {
            self.next = next
        }
    }

    final class Node8: Sendable {
        let next: Node7

        init(next: Node7) {
            self.next = next
        }
    }

    final class Node9: Sendable {
        let next: Node8

        init(next: Node8) {
            self.next = next
        }
    }

    final class Node10: Sendable {
        let next: Node9

        init(next: Node9) {
            self.next = next
        }
    }

    /// The hand-written baseline: a lazy var and ten factory methods, none of them inlined.
    final class HandwrittenGraph {
        private lazy var storedNode0 = Node0()

        @inline(never)
        func node0() -> Node0 {
            storedNode0
        }

        @inline(never)
        func node1() -> Node1 {
            Node1(next: node0())
        }

        @inline(never)
        func node2() -> Node2 {
            Node2(next: node1())
        }

        @inline(never)
        func node3() -> Node3 {
            Node3(next: node2())
        }

        @inline(never)
        func node4() -> Node4 {
            Node4(next: node3())
        }

        @inline(never)
        func node5() -> Node5 {
            Node5(next: node4())
        }

        @inline(never)
        func node6() -> Node6 {
            Node6(next: node5())
        }

        @inline(never)
        func node7() -> Node7 {
            Node7(next: node6())
        }

        @inline(never)
        func node8() -> Node8 {
            Node8(next: node7())
        }

        @inline(never)
        func node9() -> Node9 {
            Node9(next: node8())
        }

        @inline(never)
        func node10() -> Node10 {
            Node10(next: node9())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var chain: ChainModule { module() }
    }

    final class ChainModule: Module<AppComponent> {
        func node0() -> Node0 { single { Node0() } }
        func node1() -> Node1 { transient { c in Node1(next: c.chain.node0()) } }
        func node2() -> Node2 { transient { c in Node2(next: c.chain.node1()) } }
        func node3() -> Node3 { transient { c in Node3(next: c.chain.node2()) } }
        func node4() -> Node4 { transient { c in Node4(next: c.chain.node3()) } }
        func node5() -> Node5 { transient { c in Node5(next: c.chain.node4()) } }
        func node6() -> Node6 { transient { c in Node6(next: c.chain.node5()) } }
        func node7() -> Node7 { transient { c in Node7(next: c.chain.node6()) } }
        func node8() -> Node8 { transient { c in Node8(next: c.chain.node7()) } }
        func node9() -> Node9 { transient { c in Node9(next: c.chain.node8()) } }
        func node10() -> Node10 { transient { c in Node10(next: c.chain.node9()) } }
    }

    static func register(in container: Container) {
        container.register(Node0.self) { _ in Node0() }.inObjectScope(.container)
        container.register(Node1.self) { r in Node1(next: r.resolve(Node0.self)!) }.inObjectScope(.transient)
        container.register(Node2.self) { r in Node2(next: r.resolve(Node1.self)!) }.inObjectScope(.transient)
        container.register(Node3.self) { r in Node3(next: r.resolve(Node2.self)!) }.inObjectScope(.transient)
        container.register(Node4.self) { r in Node4(next: r.resolve(Node3.self)!) }.inObjectScope(.transient)
        container.register(Node5.self) { r in Node5(next: r.resolve(Node4.self)!) }.inObjectScope(.transient)
        container.register(Node6.self) { r in Node6(next: r.resolve(Node5.self)!) }.inObjectScope(.transient)
        container.register(Node7.self) { r in Node7(next: r.resolve(Node6.self)!) }.inObjectScope(.transient)
        container.register(Node8.self) { r in Node8(next: r.resolve(Node7.self)!) }.inObjectScope(.transient)
        container.register(Node9.self) { r in Node9(next: r.resolve(Node8.self)!) }.inObjectScope(.transient)
        container.register(Node10.self) { r in Node10(next: r.resolve(Node9.self)!) }.inObjectScope(
            .transient)
    }

    static var scenario: Scenario {
        Scenario(
            name: "deep10",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = graph.node10()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.node10()) }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = app.chain.node10()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.chain.node10()) }
                    return sink
                }
            },
            swinject: {
                let container = Container()
                register(in: container)
                _ = container.resolve(Node10.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(Node10.self)!) }
                    return sink
                }
            })
    }
}
