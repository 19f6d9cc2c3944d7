/// `Deep100+Generated.swift`: the chain of `deep100`, 100 transients ending in a singleton, each
/// node its own type, written three ways: hand-written factory methods, one Dirk module, and
/// Swinject registrations.
enum Deep100Source {
    static let depth = 100

    static func name(_ index: Int) -> String { "Node\(zeroPadded(index, width: 3))" }

    static func accessor(_ index: Int) -> String { "node\(zeroPadded(index, width: 3))" }

    static func text() -> String {
        let top = depth
        var lines =
            sourceHeader(
                describing:
                    "/// The nodes of `deep100`: `\(name(top))` needs `\(name(top - 1))`, … , `\(name(1))` needs the singleton"
            ) + [
                "/// `\(name(0))`.",
                "enum Deep100Nodes {",
                "    final class \(name(0)): Sendable {}",
            ]
        for i in 1...depth {
            lines += [
                "",
                "    final class \(name(i)): Sendable {",
                "        let next: \(name(i - 1))",
                "",
                "        init(next: \(name(i - 1))) {",
                "            self.next = next",
                "        }",
                "    }",
            ]
        }
        lines += ["}", "", "extension Deep100Scenario {"]

        // Hand-written.
        lines += [
            "    /// The hand-written baseline: a lazy var and \(depth) factory methods, none of them inlined.",
            "    final class HandwrittenGraph {",
            "        typealias N = Deep100Nodes",
            "",
            "        private lazy var stored\(name(0)) = N.\(name(0))()",
            "",
            "        @inline(never)",
            "        func \(accessor(0))() -> N.\(name(0)) { stored\(name(0)) }",
        ]
        for i in 1...depth {
            lines += [
                "",
                "        @inline(never)",
                "        func \(accessor(i))() -> N.\(name(i)) { N.\(name(i))(next: \(accessor(i - 1))()) }",
            ]
        }
        lines += ["    }", ""]

        // Dirk.
        lines += [
            "    final class AppComponent: Component, @unchecked Sendable {",
            "        var chain: ChainModule { module() }",
            "    }",
            "",
            "    final class ChainModule: Module<AppComponent> {",
            "        typealias N = Deep100Nodes",
            "",
            "        func \(accessor(0))() -> N.\(name(0)) { single { N.\(name(0))() } }",
        ]
        lines += (1...depth).map { i in
            "        func \(accessor(i))() -> N.\(name(i)) { transient { c in N.\(name(i))(next: c.chain.\(accessor(i - 1))()) } }"
        }
        lines += ["    }", ""]

        // Swinject.
        lines += [
            "    enum SwinjectGraph {",
            "        typealias N = Deep100Nodes",
            "",
            "        static func register(in container: Container) {",
            "            container.register(N.\(name(0)).self) { _ in N.\(name(0))() }.inObjectScope(.container)",
        ]
        for i in 1...depth {
            lines += [
                "            container.register(N.\(name(i)).self) { r in N.\(name(i))(next: r.resolve(N.\(name(i - 1)).self)!) }",
                "                .inObjectScope(.transient)",
            ]
        }
        lines += ["        }", "    }", "}", ""]
        return lines.joined(separator: "\n")
    }
}
