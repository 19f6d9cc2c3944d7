import Dirk
import Swinject

/// `transient3`: a new C, which needs a new B, which needs the cached singleton A.
enum Transient3Scenario {
    final class A: Sendable {}

    final class B: Sendable {
        let a: A

        init(a: A) {
            self.a = a
        }
    }

    final class C: Sendable {
        let b: B

        init(b: B) {
            self.b = b
        }
    }

    /// The hand-written baseline: a lazy var and two factory methods, none of them inlined.
    final class HandwrittenGraph {
        private lazy var storedA = A()

        @inline(never)
        func a() -> A {
            storedA
        }

        @inline(never)
        func b() -> B {
            B(a: a())
        }

        @inline(never)
        func c() -> C {
            C(b: b())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var graph: GraphModule { module() }
    }

    final class GraphModule: Module<AppComponent> {
        func a() -> A { single { A() } }
        func b() -> B { transient { c in B(a: c.graph.a()) } }
        func c() -> C { transient { c in C(b: c.graph.b()) } }
    }

    static var scenario: Scenario {
        Scenario(
            name: "transient3",
            handwritten: {
                let graph = HandwrittenGraph()
                _ = graph.c()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: graph.c()) }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = app.graph.c()
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: app.graph.c()) }
                    return sink
                }
            },
            swinject: {
                let container = Container()
                container.register(A.self) { _ in A() }.inObjectScope(.container)
                container.register(B.self) { r in B(a: r.resolve(A.self)!) }.inObjectScope(.transient)
                container.register(C.self) { r in C(b: r.resolve(B.self)!) }.inObjectScope(.transient)
                _ = container.resolve(C.self)!
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: container.resolve(C.self)!) }
                    return sink
                }
            })
    }
}
