/// `Scale1000+Generated.swift`: the 1,000 services of `scale1000`, each its own type, written three
/// ways: hand-written lazy vars, one Dirk module with 1,000 `single` providers, and 1,000 Swinject
/// registrations.
enum Scale1000Source {
    static let count = 1000

    /// The providers one timed iteration resolves: eight spread over the module (and over its slot
    /// table) with no regular stride, drawn once with a fixed seed.
    static let sample = [64, 101, 361, 403, 439, 685, 778, 796]

    static let setUpOnly =
        "        @_optimize(none)  // Set-up only, not timed: optimizing it would double the build time."

    static func name(_ index: Int) -> String { "Service\(zeroPadded(index, width: 4))" }

    static func accessor(_ index: Int) -> String { "service\(zeroPadded(index, width: 4))" }

    /// `bits(of: a) &+ bits(of: b) …`, one call per line.
    static func sum(of calls: [String], indent: String) -> [String] {
        ["\(indent)bits(of: \(calls[0]))"] + calls.dropFirst().map { "\(indent)    &+ bits(of: \($0))" }
    }

    static func text() -> String {
        let sampleList = sample.map(String.init).joined(separator: ", ")
        var lines =
            sourceHeader(describing: "/// The \(grouped(count)) services of `scale1000`, one type each.") + [
                "enum Scale1000Services {"
            ]
        lines += (0..<count).map { i in "    final class \(name(i)): Sendable {}" }
        lines += ["}", "", "extension Scale1000Scenario {"]

        // Hand-written.
        lines += [
            "    /// The hand-written baseline: \(grouped(count)) lazy vars behind accessors that are never inlined.",
            "    final class HandwrittenGraph {",
            "        typealias S = Scale1000Services",
            "",
        ]
        lines += (0..<count).map { i in
            "        private lazy var stored\(zeroPadded(i, width: 4)) = S.\(name(i))()"
        }
        for i in 0..<count {
            lines += [
                "",
                "        @inline(never)",
                "        func \(accessor(i))() -> S.\(name(i)) { stored\(zeroPadded(i, width: 4)) }",
            ]
        }
        lines += [
            "",
            "        /// Resolves every service; returns their identifiers, summed.",
            setUpOnly,
            "        func resolveAll() -> UInt {",
            "            var sink: UInt = 0",
        ]
        lines += (0..<count).map { i in "            sink &+= bits(of: \(accessor(i))())" }
        lines += [
            "            return sink",
            "        }",
            "",
            "        /// Resolves services \(sampleList).",
            "        func resolveSample() -> UInt {",
        ]
        lines += sum(of: sample.map { "\(accessor($0))()" }, indent: "            ")
        lines += ["        }", "    }", ""]

        // Dirk.
        lines += [
            "    final class AppComponent: Component, @unchecked Sendable {",
            "        var services: ServicesModule { module() }",
            "",
            "        /// Resolves every service; returns their identifiers, summed.",
            setUpOnly,
        ]
        lines += resolveAllThroughServices(count: count, accessor: accessor)
        lines += [
            "",
            "        /// Resolves services \(sampleList), each through the component.",
            "        func resolveSample() -> UInt {",
        ]
        lines += sum(of: sample.map { "services.\(accessor($0))()" }, indent: "            ")
        lines += [
            "        }",
            "    }",
            "",
            "    /// One module with all \(grouped(count)) providers, so that they share one slot table.",
            "    final class ServicesModule: Module<AppComponent> {",
            "        typealias S = Scale1000Services",
            "",
        ]
        lines += (0..<count).map { i in
            "        func \(accessor(i))() -> S.\(name(i)) { single { S.\(name(i))() } }"
        }
        lines += ["    }", ""]

        // Swinject.
        lines += [
            "    enum SwinjectGraph {",
            "        typealias S = Scale1000Services",
            "",
            setUpOnly,
            "        static func register(in container: Container) {",
        ]
        lines += (0..<count).map { i in
            "            container.register(S.\(name(i)).self) { _ in S.\(name(i))() }.inObjectScope(.container)"
        }
        lines += [
            "        }",
            "",
            "        /// Resolves every service; returns their identifiers, summed.",
            setUpOnly,
            "        static func resolveAll(in container: Container) -> UInt {",
            "            var sink: UInt = 0",
        ]
        lines += (0..<count).map { i in
            "            sink &+= bits(of: container.resolve(S.\(name(i)).self)!)"
        }
        lines += [
            "            return sink",
            "        }",
            "",
            "        /// Resolves services \(sampleList).",
            "        static func resolveSample(in container: Container) -> UInt {",
        ]
        lines += sum(of: sample.map { "container.resolve(S.\(name($0)).self)!" }, indent: "            ")
        lines += ["        }", "    }", "}", ""]
        return lines.joined(separator: "\n")
    }
}
