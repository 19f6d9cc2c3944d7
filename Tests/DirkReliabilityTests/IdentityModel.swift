/// The reference semantics of Dirk's strategies, against which every resolution of a random graph
/// is checked: which occurrences must be the same instance, and which must be new.
///
/// Identity is a node's serial number, unique within a test, so that an address the allocator
/// reuses never makes two instances look alike. Serials grow per component, so a node is new in a
/// resolution when its serial passes the component's count from before it. The model looks into
/// a node's dependencies only when the node is new, since a cached node's were checked when it
/// was built (or came from a resolution that failed, whose instances the model never saw).
struct IdentityModel {
    struct NodeKey: Hashable {
        let level: Int
        let index: Int
        let key: Int
    }

    /// A weak reference to the last instance of a `weak` node.
    final class WeakNode {
        weak var node: Node?

        init(_ node: Node) {
            self.node = node
        }
    }

    let spec: GraphSpec
    private var cached: [NodeKey: Int] = [:]
    /// The instances of `single` and keyed nodes that a reset released, which none may return.
    private var released: [NodeKey: Set<Int>] = [:]
    private var weakInstances: [NodeKey: WeakNode] = [:]
    /// Every instance of each `weak` node the model saw.
    private var weakSerials: [NodeKey: Set<Int>] = [:]
    private(set) var failures: [String] = []
    /// Occurrences checked so far.
    private(set) var occurrences = 0

    init(spec: GraphSpec) {
        self.spec = spec
    }

    /// Checks the instance a top-level call returned, and everything built for it, given each
    /// component's serial count from before the call.
    mutating func check(_ root: Node, builtAfter marks: [Int]) {
        var scoped: [NodeKey: Int] = [:]
        var visited: Set<Int> = []
        check(root, marks: marks, scoped: &scoped, visited: &visited)
    }

    /// Forgets what the component at `level` cached, after its `reset()`.
    mutating func reset(level: Int) {
        for (key, serial) in cached where key.level == level { released[key, default: []].insert(serial) }
        cached = cached.filter { $0.key.level != level }
        weakInstances = weakInstances.filter { $0.key.level != level }
    }

    private mutating func check(
        _ node: Node, marks: [Int], scoped: inout [NodeKey: Int], visited: inout Set<Int>
    ) {
        occurrences += 1
        let strategy = spec.strategies[node.level][node.index]
        let key = NodeKey(level: node.level, index: node.index, key: strategy == .keyed ? node.key : 0)
        let isNew = node.serial > marks[node.level]
        let name = "\(strategy) node \(node.level).\(node.index) (key \(key.key), seed \(spec.seed))"
        switch strategy {
        case .single, .keyed:
            if let expected = cached[key] {
                expect(
                    node.serial == expected, "\(name) returned #\(node.serial), not its cached #\(expected)")
            } else {
                expect(
                    released[key]?.contains(node.serial) != true,
                    "\(name) returned #\(node.serial), which a reset released")
                cached[key] = node.serial
            }
        case .transient:
            expect(isNew && !visited.contains(node.serial), "\(name) returned #\(node.serial) again")
        case .scoped:
            expect(isNew, "\(name) returned #\(node.serial) from an earlier resolution")
            if let expected = scoped[key] {
                expect(
                    node.serial == expected,
                    "\(name) returned #\(node.serial), not #\(expected) of this resolution")
            } else {
                scoped[key] = node.serial
            }
        case .weak:
            if let box = weakInstances[key] {
                if let live = box.node {
                    expect(
                        node.serial == live.serial,
                        "\(name) returned #\(node.serial) while #\(live.serial) lives")
                } else {
                    // The instance the model saw is gone, so this one is another: new, or built
                    // meanwhile by a resolution that failed.
                    expect(
                        weakSerials[key]?.contains(node.serial) != true,
                        "\(name) returned #\(node.serial), released before")
                    weakInstances[key] = WeakNode(node)
                }
            } else {
                weakInstances[key] = WeakNode(node)
            }
            weakSerials[key, default: []].insert(node.serial)
        }
        if isNew && visited.insert(node.serial).inserted {
            for dependency in node.dependencies {
                check(dependency, marks: marks, scoped: &scoped, visited: &visited)
            }
        }
    }

    private mutating func expect(_ condition: Bool, _ failure: @autoclosure () -> String) {
        if !condition { failures.append(failure()) }
    }
}
