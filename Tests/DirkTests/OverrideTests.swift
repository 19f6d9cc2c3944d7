import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Overriding one provider without a subclass")
struct OverrideTests {
    @Test("an override replaces one provider's factory and keeps its strategy", arguments: Strategy.allCases)
    func overrideKeepsTheStrategy(strategy: Strategy) {
        let fake = Thing(number: 99)
        let component = TestComponent().overriding {
            strategy.resolve($0)
        } with: {
            fake
        }
        #expect(strategy.resolve(component) === fake)
        #expect(component.counter.count == 0, "the original factory never runs")
        #expect(component.things.transient() !== fake || strategy == .transient)
    }

    @Test("an overridden single is built once per component, by the override's factory")
    func overriddenSingleBuildsOnce() {
        let built = Counter()
        let component = TestComponent().overriding {
            $0.things.single()
        } with: {
            Thing(number: built.increment())
        }
        let first = component.things.single()
        #expect(component.things.single() === first)
        #expect(built.count == 1)
    }

    @Test("an overridden transient calls the override's factory on every call")
    func overriddenTransientBuildsEachTime() {
        let built = Counter()
        let component = TestComponent().overriding {
            $0.things.transient()
        } with: {
            Thing(number: built.increment())
        }
        #expect(component.things.transient() !== component.things.transient())
        #expect(built.count == 3, "once while the override is set up, then once per call")
    }

    @Test("a transient, which keeps nothing, may be overridden after use: later calls use the override")
    func transientOverriddenAfterUse() {
        let component = TestComponent()
        let before = component.things.transient()
        #expect(before.number != 99)
        component.overriding {
            $0.things.transient()
        } with: {
            Thing(number: 99)
        }
        #expect(component.things.transient().number == 99)
        #expect(before.number != 99, "an instance built before keeps what its factory gave it")
        #expect(
            !component.dependencyGraph().nodes.contains { $0.name == "ThingModule.transient()" },
            "a transient keeps no slot, so an unrecorded graph does not list it")
    }

    @Test("children reach the overridden provider through their parents")
    func childrenSeeTheOverride() {
        let fake = Store()
        let app = RootComponent().overriding {
            $0.root.store()
        } with: {
            fake
        }
        let feature = LeafComponent().parent(app)
        #expect(feature.leaf.viewModel().store === fake)
    }

    @Test("the override's factory receives the component and may resolve its other providers")
    func overrideUsesTheComponent() {
        let component = TestComponent().overriding {
            $0.things.transient()
        } with: { c in
            Thing(number: c.things.single().number + 100)
        }
        #expect(component.things.transient().number == 101)
    }

    @Test("overrides in parallel tests never see each other's", arguments: 0..<8)
    func overridesAreLocal(seed: Int) {
        let fake = Thing(number: 1_000 + seed)
        let component = TestComponent()
        if seed.isMultiple(of: 2) {
            component.overriding {
                $0.things.single()
            } with: {
                fake
            }
        }
        for _ in 0..<100 {
            #expect((component.things.single() === fake) == seed.isMultiple(of: 2))
        }
    }

    @Test("an override set up while other threads read other providers of the component applies")
    func overrideBesideReaders() throws {
        // A reader on a thread of its own reads until the override is set up, and counts the reads
        // that overlapped it: begun or ended while it was under way, or spanning it. The override
        // waits for the reader's first read. Rounds, each with a fresh component, go on until a
        // read overlapped, within a bound.
        let outcome = LockedBox<(rounds: Int, overlapping: Int, missed: Int)?>(nil)
        withWatchdog {
            var (rounds, overlapping, missed) = (0, 0, 0)
            while rounds == 0 || (overlapping == 0 && rounds < 100) {
                rounds += 1
                let component = TestComponent()
                let fake = Thing(number: 7)
                // 0 before the override, 1 while it is set up, 2 after.
                let phase = LockedBox(0)
                let reads = Counter()
                let during = Counter()
                let finished = DispatchSemaphore(value: 0)
                Thread {
                    while true {
                        let before = phase.withLock { $0 }
                        _ = component.things.transient()
                        let after = phase.withLock { $0 }
                        reads.increment()
                        if before == 1 || before != after { during.increment() }
                        if after == 2 { break }
                    }
                    finished.signal()
                }.start()
                while reads.count == 0 { sched_yield() }
                phase.withLock { $0 = 1 }
                component.overriding {
                    $0.things.single()
                } with: {
                    fake
                }
                phase.withLock { $0 = 2 }
                finished.wait()
                overlapping += during.count
                if component.things.single() !== fake { missed += 1 }
            }
            outcome.withLock { $0 = (rounds, overlapping, missed) }
        }
        let (rounds, overlapping, missed) = try #require(
            outcome.withLock { $0 }, "the watchdog ended the rounds")
        #expect(overlapping > 0, "no read overlapped the override's set-up in \(rounds) rounds")
        #expect(missed == 0, "rounds whose override did not apply")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("overriding a provider that was already used stops the program")
    func lateOverrideTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let component = TestComponent()
            _ = component.things.single()
            component.overriding {
                $0.things.single()
            } with: {
                Thing()
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `TestComponent` overrode `ThingModule.single()` after that provider was already used"))
        #expect(message.contains("before the first resolution"))
        #expect(message.contains("DirkTests/OverrideTests.swift:"))
    }

    @Test("an override whose factory needs a parent registered after it says to register parents first")
    func overrideBeforeParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = TestComponent()
            _ = OverrideChild().overriding {
                $0.parts.checkout()
            } with: { c in
                c.app.things.single()
            }.parent(app)
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: `OverrideChild` has no parent of type `TestComponent`"))
        #expect(message.contains("register parents before overriding providers"))
    }

    @Test("an override of a provider that an earlier override's factory used says to swap them")
    func overridesInTheWrongOrderTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = OverrideChild().overriding {
                $0.parts.api()
            } with: { c in
                let api = Thing()
                api.link = c.parts.client()
                return api
            }.overriding {
                $0.parts.client()
            } with: {
                Thing()
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains("overrode `OverridePartsModule.client()` after that provider was already used"))
        #expect(message.contains("override `OverridePartsModule.client()` first"))
    }

    @Test("a closure that calls no provider stops the program")
    func noProviderTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestComponent().overriding { _ in
                Thing()
            } with: {
                Thing()
            }
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: the closure given to `TestComponent.overriding(_:with:)` called no provider"))
    }

    @Test("a closure that calls several providers stops the program")
    func severalProvidersTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestComponent().overriding { c in
                _ = c.things.transient()
                return c.things.single()
            } with: {
                Thing()
            }
        }
        #expect(
            standardError(of: result).contains(
                "called `ThingModule.transient()` and then `ThingModule.single()`; it must call exactly one provider"
            ))
    }

    @Test("overriding a parent's provider from a child stops the program")
    func parentsProviderTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = RootComponent()
            LeafComponent().parent(app).overriding {
                $0.app.root.store()
            } with: {
                Store()
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("called `RootModule.store()`, which belongs to `RootComponent`"))
        #expect(message.contains("override it on `RootComponent` itself"))
    }
    #endif

    @Test("a provider that builds the protocol it returns takes any implementation as its override")
    func protocolProvider() {
        let component = GreetingComponent().overriding {
            $0.greetings.greeting()
        } with: {
            FrenchGreeting()
        }
        #expect(component.greetings.greeting().text == "bonjour")
        #expect(
            component.greetings.greeting() as? FrenchGreeting === component.greetings.greeting()
                as? FrenchGreeting)
        let plain = GreetingComponent()
        #expect(plain.greetings.greeting().text == "hello")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test(
        "overriding a provider whose strategy builds a concrete type stops the program, and says how to fix it"
    )
    func concreteStrategyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            GreetingComponent().overriding {
                $0.greetings.concreteGreeting()
            } with: {
                FrenchGreeting()
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `GreetingComponent.overriding(_:with:)` cannot override `GreetingModule.concreteGreeting()`: "
                    + "its `single` builds `EnglishGreeting`, which becomes the `any Greeting` that the provider returns"
            ))
        #expect(message.contains("`single { EnglishGreeting() as any Greeting }`"))
        #expect(message.contains("DirkTests/OverrideTests.swift:"))
    }

    @Test(
        "an override whose factory throws, of a provider that cannot, stops the program at the provider, naming the override"
    )
    func foreignErrorTraps() async {
        // The override is on the line after the exit test's, which the macro may report as its own.
        let overrideLines = (#line + 1)...(#line + 2)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestComponent().overriding {
                $0.things.single()
            } with: {
                throw Unavailable()
            }
        }
        let message = standardError(of: result)
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        // The whole message, which the Errors article shows for its own types; only the line of
        // the provider's strategy call is left out.
        #expect(trap.hasPrefix("DirkTests/Fixtures.swift:"), "not at the provider's strategy call: \(trap)")
        let start =
            "Fatal error: Dirk: `ThingModule.single()` of `TestComponent`, whose strategy is called at DirkTests/Fixtures.swift:"
        #expect(trap.contains(start), "\(trap)")
        let rest = """
            , got an error of type `Unavailable`, which it cannot throw: it throws nothing. Only the \
            factory of the `overriding(_:with:)` of `ThingModule.single()` at \
            DirkTests/OverrideTests.swift:LINE can throw what the provider cannot, on this call or on the build that this call waited for, and the provider's typed \
            throws promise its callers that this never happens. Make the override's factory return a \
            fake instead of throwing; to test a failure, override a provider that throws.
            """
        let named = overrideLines.contains { line in
            trap.hasSuffix(rest.replacingOccurrences(of: "LINE", with: "\(line)"))
        }
        #expect(named, "\(trap)")
    }
    #endif
}

// MARK: Fixtures

struct Unavailable: Error {}

protocol Greeting: AnyObject, Sendable {
    var text: String { get }
}

final class EnglishGreeting: Greeting {
    var text: String { "hello" }
}

final class FrenchGreeting: Greeting {
    var text: String { "bonjour" }
}

final class OverrideChild: Component, @unchecked Sendable {
    var app: TestComponent { parent() }
    var parts: OverridePartsModule { module() }
}

final class OverridePartsModule: Module<OverrideChild> {
    func client() -> Thing { single { Thing() } }
    func api() -> Thing {
        single { c in
            let api = Thing()
            api.link = c.parts.client()
            return api
        }
    }
    func checkout() -> Thing { transient { c in c.app.things.single() } }
}

final class GreetingComponent: Component, @unchecked Sendable {
    var greetings: GreetingModule { module() }
}

final class GreetingModule: Module<GreetingComponent> {
    /// Builds the protocol it returns, so an override may return any implementation.
    func greeting() -> any Greeting { single { EnglishGreeting() as any Greeting } }
    /// Builds an `EnglishGreeting`, which becomes `any Greeting` only on return.
    func concreteGreeting() -> any Greeting { single { EnglishGreeting() } }
}

@Suite("Overrides of providers with keys, and factories that need nothing")
struct KeyedOverrideTests {
    @Test("an override of a single(key:) provider receives each key, and builds once per key")
    func keyedOverrideSeesTheKey() {
        let component = KeyedOverrideComponent().overriding {
            $0.users.user(id: 1)
        } with: { (_, id: Int) in
            KeyedUser(name: "fake \(id)")
        }
        #expect(component.users.user(id: 1).name == "fake 1")
        #expect(component.users.user(id: 2).name == "fake 2")
        #expect(component.users.user(id: 2) === component.users.user(id: 2))
    }

    @Test("an override's factory may take nothing")
    func factoryWithoutTheComponent() {
        let component = KeyedOverrideComponent().overriding {
            $0.users.guest()
        } with: {
            KeyedUser(name: "fake")
        }
        #expect(component.users.guest().name == "fake")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("an override whose factory takes a key of another type stops with a message")
    func keyOfAnotherType() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = KeyedOverrideComponent().overriding {
                $0.users.user(id: 1)
            } with: { (_, name: String) in
                KeyedUser(name: name)
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "gave `KeyedOverrideModule.user(id:)` a factory that takes a key of type `String`, but `KeyedOverrideModule.user(id:)` is a `single(key:)` provider, whose key is an `Int`"
            ), "\(message)")
    }
    #endif
}

final class KeyedUser: Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }
}

final class KeyedOverrideComponent: Component, @unchecked Sendable {
    var users: KeyedOverrideModule { module() }
}

final class KeyedOverrideModule: Module<KeyedOverrideComponent> {
    func user(id: Int) -> KeyedUser { single(key: id) { KeyedUser(name: "user \(id)") } }
    func guest() -> KeyedUser { single { KeyedUser(name: "guest") } }
}
