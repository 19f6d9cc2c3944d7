/// `Cold1000+Generated.swift`: the 1,000 services of `cold1000`, each its own type, written three
/// ways: hand-written lazy vars and factory methods, one Dirk module with 1,000 providers, and 1,000
/// Swinject registrations.
///
/// Every fifth provider is a transient and the others are singletons, the mix of `cold`; every
/// service but the first needs one earlier service, drawn with a fixed seed.
enum Cold1000Source {
    static let count = 1000
    static let seed: UInt32 = 1000

    static func name(_ index: Int) -> String { "Service\(zeroPadded(index, width: 4))" }

    static func accessor(_ index: Int) -> String { "service\(zeroPadded(index, width: 4))" }

    static func isTransient(_ index: Int) -> Bool { index % 5 == 4 }

    /// The earlier service each service needs; nil for the first.
    static func dependencies() -> [Int?] {
        var random = PythonRandom(seed: seed)
        return [nil] + (1..<count).map { index in random.below(index) }
    }

    static func text() -> String {
        let needs = dependencies()
        let transients = (0..<count).filter(isTransient).count

        /// The expression that builds service `i`, with `resolve` making its dependency from the
        /// dependency's index.
        func make(_ i: Int, _ resolve: (Int) -> String) -> String {
            guard let need = needs[i] else { return "S.\(name(i))()" }
            return "S.\(name(i))(\(resolve(need)))"
        }

        var lines =
            sourceHeader(
                describing:
                    "/// The \(grouped(count)) services of `cold1000`, one type each; each but the first needs an earlier one."
            ) + [
                "enum Cold1000Services {",
                "    final class \(name(0)): Sendable {}",
            ]
        for i in 1..<count {
            let dependency = name(needs[i]!)
            lines += [
                "",
                "    final class \(name(i)): Sendable {",
                "        let dependency: \(dependency)",
                "",
                "        init(_ dependency: \(dependency)) {",
                "            self.dependency = dependency",
                "        }",
                "    }",
            ]
        }
        lines += ["}", "", "extension Cold1000Scenario {"]

        // Hand-written.
        let handwrittenCall = { (need: Int) in "\(accessor(need))()" }
        lines += [
            "    /// The hand-written baseline: \(count - transients) lazy vars and \(transients) factory methods, behind",
            "    /// accessors that are never inlined.",
            "    final class HandwrittenGraph {",
            "        typealias S = Cold1000Services",
            "",
        ]
        lines += (0..<count).filter { !isTransient($0) }.map { i in
            "        private lazy var stored\(zeroPadded(i, width: 4)) = \(make(i, handwrittenCall))"
        }
        lines += [
            "",
            "        private init() {}",
            "",
            "        /// Not inlined, so that the graph is a heap object as it is in real use.",
            "        @inline(never)",
            "        static func make() -> HandwrittenGraph {",
            "            HandwrittenGraph()",
            "        }",
        ]
        for i in 0..<count {
            let body = isTransient(i) ? make(i, handwrittenCall) : "stored\(zeroPadded(i, width: 4))"
            lines += [
                "", "        @inline(never)", "        func \(accessor(i))() -> S.\(name(i)) { \(body) }",
            ]
        }
        lines += [
            "",
            "        /// Resolves every service in order; returns their identifiers, summed.",
            "        func resolveAll() -> UInt {",
            "            var sink: UInt = 0",
        ]
        lines += (0..<count).map { i in "            sink &+= bits(of: \(accessor(i))())" }
        lines += ["            return sink", "        }", "    }", ""]

        // Dirk.
        lines += [
            "    final class AppComponent: Component, @unchecked Sendable {",
            "        var services: ServicesModule { module() }",
            "",
            "        /// Resolves every service in order; returns their identifiers, summed.",
        ]
        lines += resolveAllThroughServices(count: count, accessor: accessor)
        lines += [
            "    }",
            "",
            "    /// One module with all \(grouped(count)) providers, as in `scale1000`.",
            "    final class ServicesModule: Module<AppComponent> {",
            "        typealias S = Cold1000Services",
            "",
        ]
        for i in 0..<count {
            let strategy = isTransient(i) ? "transient" : "single"
            if needs[i] == nil {
                lines.append(
                    "        func \(accessor(i))() -> S.\(name(i)) { \(strategy) { S.\(name(i))() } }"
                )
            } else {
                let factory = make(i) { need in "c.services.\(accessor(need))()" }
                lines.append(
                    "        func \(accessor(i))() -> S.\(name(i)) { \(strategy) { c in \(factory) } }")
            }
        }
        lines += ["    }", ""]

        // Swinject.
        lines += [
            "    enum SwinjectGraph {",
            "        typealias S = Cold1000Services",
            "",
            "        static func register(in container: Container) {",
        ]
        for i in 0..<count {
            let scope = isTransient(i) ? ".transient" : ".container"
            if needs[i] == nil {
                lines.append(
                    "            container.register(S.\(name(i)).self) { _ in S.\(name(i))() }")
            } else {
                let factory = make(i) { need in "r.resolve(S.\(name(need)).self)!" }
                lines.append("            container.register(S.\(name(i)).self) { r in \(factory) }")
            }
            lines.append("                .inObjectScope(\(scope))")
        }
        lines += [
            "        }",
            "",
            "        /// Resolves every service in order; returns their identifiers, summed.",
            "        static func resolveAll(in container: Container) -> UInt {",
            "            var sink: UInt = 0",
        ]
        lines += (0..<count).map { i in
            "            sink &+= bits(of: container.resolve(S.\(name(i)).self)!)"
        }
        lines += ["            return sink", "        }", "    }", "}", ""]
        return lines.joined(separator: "\n")
    }
}
