import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("Construction cycles trap with their path")
struct CycleTests {
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle between singles shows the whole path")
    func singleCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.a()
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: dependency cycle: CycleModule.a() -> CycleModule.b() -> CycleModule.a()"))
        #expect(message.contains("`CycleComponent`"))
        #expect(
            message.contains(
                "as `CycleModule.a()` could: build its instance without `CycleModule.b()`, and set the reference in a `configure:` closure passed to its `single`"
            ), "the advice names the providers of the path")
    }
    #endif

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "the cycle's advice suggests only what the provider's strategy accepts",
        arguments: CycleAdvice.allCases)
    func adviceFitsTheStrategy(_ advice: CycleAdvice) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [advice] in
            armExitTestWatchdog()
            let component = CycleComponent()
            switch advice {
            case .single: _ = component.cycles.a()
            case .weak: _ = component.cycles.weakA()
            case .scoped: _ = component.cycles.scopedA()
            case .scopedThroughTransient: _ = component.cycles.mixedScoped()
            case .keyed: _ = component.cycles.keyedPair(1)
            }
        }
        #expect(standardError(of: result).contains(advice.expected))
        if advice != .single {
            #expect(!standardError(of: result).contains("passed to its `single`"))
        }
    }
    #endif

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a provider that requires itself directly traps")
    func selfCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.itself()
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: CycleModule.itself() -> CycleModule.itself()"))
    }

    @Test("a cycle through transients traps instead of overflowing the stack")
    func transientCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.ping()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "dependency cycle: CycleModule.ping() -> CycleModule.pong() -> CycleModule.ping()"))
        #expect(message.contains("calls itself while it is being built"))
        #expect(message.contains("plain function"))
    }

    @Test("a cycle through scoped providers traps")
    func scopedCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.scopedA()
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: CycleModule.scopedA() -> CycleModule.scopedB() -> CycleModule.scopedA()"))
    }

    @Test("a cycle through a keyed single traps")
    func keyedCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.keyed("x")
        }
        #expect(
            standardError(of: result).contains(
                #"dependency cycle: CycleModule.keyed(_:) for key "x" -> CycleModule.keyed(_:) for key "x". "#
                    + #"`CycleModule.keyed(_:)` for key "x" of `CycleComponent` requires itself"#))
    }

    @Test("a cycle from one key through another traps with the whole path and every key")
    func cycleThroughAnotherKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            _ = component.cycles.keyedPair(1)
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: CycleModule.keyedPair(_:) for key 1 -> CycleModule.keyedPair(_:) for key 2 "
                    + "-> CycleModule.keyedPair(_:) for key 1."))
    }
    #endif

    @Test("two keys of one provider that need each other once are no cycle")
    func keysNeedingAnotherKey() {
        let component = CycleComponent()
        let first = component.cycles.keyedChain(1)
        #expect(first === component.cycles.keyedChain(1))
        #expect(first !== component.cycles.keyedChain(2))
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a cycle that leaves through a parent and comes back traps with the path across components")
    func cycleAcrossParents() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let app = CycleComponent()
            let child = CycleChildComponent().parent(app)
            app.cycles.escape = { child.child.loop() }
            _ = child.child.loop()
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: CycleChildModule.loop() -> CycleModule.escaping() -> CycleChildModule.loop()"
            ))
    }

    @Test("a cycle split across two threads traps instead of hanging")
    func cycleAcrossThreads() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = CycleComponent()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.cycles.left() }
            DispatchQueue.global().async(group: group) { _ = component.cycles.right() }
            group.wait()
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: dependency cycle across threads:"))
        #expect(message.contains("CycleModule.left()"))
        #expect(message.contains("CycleModule.right()"))
    }

    @Test("module initializers that need each other trap with the path, whichever accessor asked")
    func moduleInitializerCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            _ = ModuleCycleComponent().first
        }
        #expect(
            standardError(of: result).contains(
                "dependency cycle: FirstCyclicModule.init(_:) -> SecondCyclicModule.init(_:) -> "
                    + "FirstCyclicModule.init(_:)"))
    }
    #endif

    @Test("an acyclic diamond is no cycle")
    func diamondIsFine() {
        let component = CycleComponent()
        let diamond = component.cycles.diamond()
        #expect(diamond.0 === diamond.1)
    }
}

// MARK: Fixtures

final class ModuleCycleComponent: Component, @unchecked Sendable {
    var first: FirstCyclicModule { module() }
    var second: SecondCyclicModule { module() }
    /// A second accessor for the first module, so that the cycle closes through another call site.
    var firstAgain: FirstCyclicModule { module() }
}

final class FirstCyclicModule: Module<ModuleCycleComponent> {
    required init(_ component: ModuleCycleComponent) {
        super.init(component)
        _ = component.second
    }
}

final class SecondCyclicModule: Module<ModuleCycleComponent> {
    required init(_ component: ModuleCycleComponent) {
        super.init(component)
        _ = component.firstAgain
    }
}

final class CycleComponent: Component, @unchecked Sendable {
    var cycles: CycleModule { module() }
}

final class CycleChildComponent: Component, @unchecked Sendable {
    var app: CycleComponent { parent() }
    var child: CycleChildModule { module() }
}

class CycleModule: Module<CycleComponent> {
    nonisolated(unsafe) var escape: () -> Thing = { Thing() }
    let leftStarted = DispatchSemaphore(value: 0)
    let rightStarted = DispatchSemaphore(value: 0)

    func a() -> Thing { single { c in c.cycles.b() } }
    func b() -> Thing { single { c in c.cycles.a() } }
    func itself() -> Thing { single { c in c.cycles.itself() } }
    func ping() -> Thing { transient { c in c.cycles.pong() } }
    func pong() -> Thing { transient { c in c.cycles.ping() } }
    func weakA() -> Thing { weak { c in c.cycles.weakB() } }
    func weakB() -> Thing { weak { c in c.cycles.weakA() } }
    func mixedTransient() -> Thing { transient { c in c.cycles.mixedScoped() } }
    func mixedScoped() -> Thing { scoped { c in c.cycles.mixedTransient() } }
    func scopedA() -> Thing { scoped { c in c.cycles.scopedB() } }
    func scopedB() -> Thing { scoped { c in c.cycles.scopedA() } }
    func keyed(_ key: String) -> Thing { single(key: key) { c in c.cycles.keyed(key) } }
    func keyedPair(_ key: Int) -> Thing { single(key: key) { c in c.cycles.keyedPair(3 - key) } }
    /// Key 1 needs key 2, which needs nothing.
    func keyedChain(_ key: Int) -> Thing {
        single(key: key) { c in
            if key == 1 { _ = c.cycles.keyedChain(2) }
            return Thing()
        }
    }
    func escaping() -> Thing { single { self.escape() } }
    func shared() -> Thing { single { Thing() } }
    func diamond() -> (Thing, Thing) { transient { c in (c.cycles.viaLeft(), c.cycles.viaRight()) } }
    func viaLeft() -> Thing { transient { c in c.cycles.shared() } }
    func viaRight() -> Thing { transient { c in c.cycles.shared() } }

    /// Builds `left`, waits until another thread builds `right`, then needs `right`.
    func left() -> Thing {
        single { c in
            c.cycles.leftStarted.signal()
            c.cycles.rightStarted.wait()
            return c.cycles.right()
        }
    }

    /// Builds `right`, waits until another thread builds `left`, then needs `left`.
    func right() -> Thing {
        single { c in
            c.cycles.rightStarted.signal()
            c.cycles.leftStarted.wait()
            return c.cycles.left()
        }
    }
}

class CycleChildModule: Module<CycleChildComponent> {
    func loop() -> Thing { single { c in c.app.cycles.escaping() } }
}

/// A cycle through providers of one strategy, and the advice its message must give.
enum CycleAdvice: String, CaseIterable, Sendable, Codable, CustomTestStringConvertible {
    case single, weak, scoped, scopedThroughTransient, keyed

    var testDescription: String { rawValue }

    var expected: String {
        switch self {
        case .single:
            "as `CycleModule.a()` could: build its instance without `CycleModule.b()`, and set the reference in a `configure:` closure passed to its `single`"
        case .weak:
            "as `CycleModule.weakA()` could: build its instance without `CycleModule.weakB()`, and set the reference in a `configure:` closure passed to its `weak`"
        case .scoped:
            "as `CycleModule.scopedA()` could: build its instance without `CycleModule.scopedB()`, and set the reference in a `configure:` closure passed to its `scoped`"
        case .scopedThroughTransient:
            "as `CycleModule.mixedScoped()` could: build its instance without `CycleModule.mixedTransient()`, and set the reference in a `configure:` closure passed to its `scoped`"
        case .keyed: "set the reference in a `configure:` closure passed to its `single(key:)`"
        }
    }
}
