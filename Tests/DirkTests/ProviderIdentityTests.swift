import Dirk
import DirkTestSupport
import Testing

@Suite("One cache slot per provider")
struct ProviderIdentityTests {
    @Test("two methods that return the same type never share an instance")
    func sameTypeDifferentMethods() {
        let component = IdentityComponent()
        #expect(component.identity.primary() !== component.identity.secondary())
        #expect(component.identity.primary() === component.identity.primary())
    }

    @Test("overloads that differ only in return type each get their own instance")
    func overloadsByReturnType() {
        let component = IdentityComponent()
        let thing: Thing = component.identity.inject()
        let other: Other = component.identity.inject()
        #expect(thing === component.identity.inject() as Thing)
        #expect(other === component.identity.inject() as Other)
    }

    @Test("a generic provider caches one instance per type")
    func genericProviderPerType() {
        let component = IdentityComponent()
        let numbers: Box<Int> = component.identity.box()
        let strings: Box<String> = component.identity.box()
        #expect(numbers === component.identity.box() as Box<Int>)
        #expect(strings === component.identity.box() as Box<String>)
        #expect(ObjectIdentifier(numbers) != ObjectIdentifier(strings))
    }

    @Test("a subclass that overrides a provider gets its own behaviour, not the base's instance")
    func overrideGetsItsOwnSlot() {
        let base = IdentityComponent()
        let overriding = IdentityComponent().module(IdentityModule.self) { OverridingModule($0) }
        #expect(overriding.identity.primary().number == 7)
        #expect(base.identity.primary().number == 0)
        #expect(overriding.identity.primary() === overriding.identity.primary())
        #expect(overriding.identity.secondary() !== overriding.identity.primary())
    }

    @Test("two modules sharing a base class keep separate instances")
    func siblingModulesDoNotShare() {
        let component = IdentityComponent()
        #expect(component.left.shared() !== component.right.shared())
    }
}

// MARK: Fixtures

final class Box<Value>: Sendable {}

final class IdentityComponent: Component, @unchecked Sendable {
    var identity: IdentityModule { module() }
    var left: LeftModule { module() }
    var right: RightModule { module() }
}

class IdentityModule: Module<IdentityComponent> {
    func primary() -> Thing { single { Thing() } }
    func secondary() -> Thing { single { Thing() } }
    func inject() -> Thing { single { Thing() } }
    func inject() -> Other { single { Other() } }
    func box<Value>() -> Box<Value> { single { Box<Value>() } }
}

final class OverridingModule: IdentityModule {
    override func primary() -> Thing { single { Thing(number: 7) } }
}

class SharedBaseModule: Module<IdentityComponent> {
    func shared() -> Thing { single { Thing() } }
}

final class LeftModule: SharedBaseModule {}
final class RightModule: SharedBaseModule {}

@Suite("Provider identity with generated code")
struct GeneratedProviderTests {
    @Test("two providers that generated code places at one file, line and column never share an instance")
    func sameSiteDifferentProviders() {
        let component = GeneratedComponent()
        let first = component.generated.first()
        #expect(first !== component.generated.second())
        #expect(first === component.generated.first())
    }

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "two providers at one slot with different strategies or keyedness stop the program, naming both",
        arguments: GeneratedClash.allCases)
    func clashTraps(clash: GeneratedClash) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [clash] in
            armExitTestWatchdog()
            clash.commit()
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: two providers named `GeneratedModule.clash(_:)` of `GeneratedComponent`"),
            "\(clash): \(message)")
        #expect(message.contains(clash.strategies), "\(clash): \(message)")
        #expect(message.contains("Give the providers different names"), "\(clash): \(message)")
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/Providers.swift:"), "\(clash): not at the generated file: \(trap)")
    }
    #endif

    @Test("a transient and a single at one slot, neither overridden, each keep to their strategy")
    func transientBesideSingle() {
        // A transient keeps nothing in the slot: nothing tells the two apart, and nothing needs to.
        let component = GeneratedComponent()
        let cached = component.generated.clash(UInt64(1))
        #expect(component.generated.clash(Int64(1)) !== component.generated.clash(Int64(1)))
        #expect(component.generated.clash(Int64(1)) !== cached)
        #expect(component.generated.clash(UInt64(1)) === cached)
    }

    @Test("an override of a transient or a single at one slot replaces that provider alone")
    func overrideOfOneOfTwoAtOneSlot() {
        let fake = Thing()
        let first = GeneratedComponent().overriding {
            $0.generated.clash(Int64(1))
        } with: {
            fake
        }
        #expect(first.generated.clash(Int64(1)) === fake)
        let cached = first.generated.clash(UInt64(1))
        #expect(cached !== fake, "the single builds its own")
        #expect(first.generated.clash(UInt64(1)) === cached)
        let second = GeneratedComponent().overriding {
            $0.generated.clash(UInt64(1))
        } with: {
            fake
        }
        #expect(second.generated.clash(UInt64(1)) === fake)
        #expect(second.generated.clash(Int64(1)) !== fake, "the transient builds its own")
    }

    @Test("a generic provider whose return type does not mention its type argument shares one instance")
    func genericProviderWithoutTheTypeInItsReturnType() {
        let component = GeneratedComponent()
        #expect(component.generated.client(for: Int.self) === component.generated.client(for: String.self))
        let numbers = component.generated.keyedClient(for: Int.self)
        #expect(numbers !== component.generated.keyedClient(for: String.self))
        #expect(numbers === component.generated.keyedClient(for: Int.self))
    }
}

/// Pairs of providers that generated code places at one position, with different strategies,
/// each called in the order its name gives.
enum GeneratedClash: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case scopedThenSingle, singleThenScoped, keyedThenSingle, singleThenKeyed, weakThenSingle
    /// A `transient` keeps nothing in the slot, so only the override of one of the two, which records
    /// its provider's strategy, shows the clash: to the override of the other.
    case singleUsedThenTransientOverridden, transientOverriddenThenSingleOverridden

    var testDescription: String { rawValue }

    /// What the message says of the two strategies, the first one called first.
    var strategies: String {
        switch self {
        case .scopedThenSingle: "one uses `scoped` and the other `single`"
        case .singleThenScoped: "one uses `single` and the other `scoped`"
        case .keyedThenSingle: "one uses `single(key:)` and the other `single`"
        case .singleThenKeyed: "one uses `single` and the other `single(key:)`"
        case .weakThenSingle: "one uses `weak` and the other `single`"
        case .singleUsedThenTransientOverridden: "one uses `single` and the other `transient`"
        case .transientOverriddenThenSingleOverridden: "one uses `transient` and the other `single`"
        }
    }

    /// Calls both providers of the pair, which stops the program; the first result is kept, so
    /// that a `weak` instance is still alive when the second provider runs.
    func commit() {
        let component = GeneratedComponent()
        switch self {
        case .scopedThenSingle:
            let first = component.generated.clash(Int8(1))
            withExtendedLifetime(first) { _ = component.generated.clash(UInt(1)) }
        case .singleThenScoped:
            let first = component.generated.clash(UInt(1))
            withExtendedLifetime(first) { _ = component.generated.clash(Int8(1)) }
        case .keyedThenSingle:
            let first = component.generated.clash(Int16(1))
            withExtendedLifetime(first) { _ = component.generated.clash(Int32(1)) }
        case .singleThenKeyed:
            let first = component.generated.clash(Int32(1))
            withExtendedLifetime(first) { _ = component.generated.clash(Int16(1)) }
        case .weakThenSingle:
            let first = component.generated.clash("weak")
            withExtendedLifetime(first) { _ = component.generated.clash(true) }
        case .singleUsedThenTransientOverridden:
            _ = component.generated.clash(UInt64(1))
            _ = component.overriding {
                $0.generated.clash(Int64(1))
            } with: {
                Thing()
            }
        case .transientOverriddenThenSingleOverridden:
            let once = component.overriding {
                $0.generated.clash(Int64(1))
            } with: {
                Thing()
            }
            _ = once.overriding {
                $0.generated.clash(UInt64(1))
            } with: {
                Thing()
            }
        }
    }
}

final class GeneratedComponent: Component, @unchecked Sendable {
    var generated: GeneratedModule { module() }
}

// The providers below stand for code a macro or a generator writes: `#sourceLocation` gives
// pairs of them one file, line and column.
final class GeneratedModule: Module<GeneratedComponent> {
    #sourceLocation(file:"Generated/Providers.swift",line:1)
    func first() -> Thing { single { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:1)
    func second() -> Thing { single { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:2)
    func clash(_ key: Int8) -> Thing { scoped { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:2)
    func clash(_ key: UInt) -> Thing { single { Thing() } }
    #sourceLocation()
    // A strategy call's `#column` is where its arguments start: its parenthesis, or its trailing
    // closure when it has no parentheses. The signatures below line those up within each pair.
    #sourceLocation(file:"Generated/Providers.swift",line:3)
    func clash(_ id: Int16) -> Thing { single(key: id) { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:3)
    func clash(_ k: Int32) -> Thing { single { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:4)
    func clash(_ key: String) -> Thing { weak { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:4)
    func clash(_ key: Bool) -> Thing { single { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:5)
    func clash(_ k: Int64) -> Thing { transient { Thing() } }
    #sourceLocation()
    #sourceLocation(file:"Generated/Providers.swift",line:5)
    func clash(_ key: UInt64) -> Thing { single { Thing() } }
    #sourceLocation()

    func client<API>(for api: API.Type) -> Other { single { Other() } }
    func keyedClient<API>(for api: API.Type) -> Other { single(key: ObjectIdentifier(API.self)) { Other() } }
}

@Suite("A provider's identity can be passed on")
struct PassedIdentityTests {
    @Test("two providers that share a helper passing their identities get two instances")
    func helperWithIdentities() {
        let component = HelperComponent()
        #expect(component.labels.title() !== component.labels.subtitle())
        #expect(component.labels.title() === component.labels.title())
        #expect(component.labels.title().text == "title")
    }

    @Test("without the identity, the helper's own place makes them share one")
    func helperWithoutIdentities() {
        let component = HelperComponent()
        #expect(component.labels.sharedA() === component.labels.sharedB())
    }
}

final class HelperLabel: Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

extension Module {
    /// A team helper that builds a `single` for the provider whose identity it is given.
    func cachedLabel(_ make: () -> HelperLabel, id: ProviderID) -> HelperLabel { single(make, id: id) }

    /// The same helper without the identity: every provider that uses it shares one instance.
    func cachedLabel(_ make: () -> HelperLabel) -> HelperLabel { single(make) }
}

final class HelperComponent: Component, @unchecked Sendable {
    var labels: LabelModule { module() }
}

final class LabelModule: Module<HelperComponent> {
    func title() -> HelperLabel { cachedLabel({ HelperLabel("title") }, id: ProviderID()) }
    func subtitle() -> HelperLabel { cachedLabel({ HelperLabel("subtitle") }, id: ProviderID()) }
    func sharedA() -> HelperLabel { cachedLabel { HelperLabel("a") } }
    func sharedB() -> HelperLabel { cachedLabel { HelperLabel("b") } }
}
