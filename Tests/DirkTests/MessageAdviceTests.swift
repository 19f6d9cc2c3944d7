import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// The code that each message suggests, as the message prints it for the fixtures below, and
/// where `.ci/check-message-advice` puts it to compile it with those fixtures: `ADVICE` stands for
/// the code in `context`. The tests below trigger each message and check that it prints `code`.
enum Advice {
    static let singleOfProtocol = (
        code: #"single { AdviceLabel() as any AdviceDescribed }"#,
        context: #"extension AdviceModule { func checkedLabel() -> any AdviceDescribed { ADVICE } }"#
    )
    static let keyedSingleOfProtocol = (
        code: #"single(key: key) { AdviceLabel() as any AdviceDescribed }"#,
        context:
            #"extension AdviceModule { func checkedNamed(key: String) -> any AdviceDescribed { ADVICE } }"#
    )
    static let asyncSingleOfProtocol = (
        code: #"as any AdviceDescribed"#,
        context: #"""
        extension AdviceModule {
            func checkedLoaded() async -> any AdviceDescribed { await single { await loadAdviceLabel() ADVICE } }
        }
        """#
    )
    static let weakOfProtocol = (
        code: #"weak { AdviceLiveFeed() as any AdviceFeed } object: { $0 }"#,
        context: #"extension AdviceModule { func checkedFeed() -> any AdviceFeed { ADVICE } }"#
    )
    static let sendableClosure = (
        code: #"as @Sendable (String) -> Bool"#,
        context: #"""
        func checkedValidator() -> AdviceComponent {
            AdviceComponent().overriding { $0.advice.validator() } with: { { _ in false } ADVICE }
        }
        """#
    )
    static let missingParent = (
        code: #".parent(adviceParent)"#,
        context:
            #"func checkedParent(adviceParent: AdviceParent) -> AdviceComponent { AdviceComponent()ADVICE }"#
    )
    static let moduleAccessorOnOwner = (
        code: #"var adviceModule: AdviceModule { module() }"#,
        context: #"extension AdviceComponent { ADVICE }"#
    )
    static let parentAccessor = (
        code: #"var adviceComponent: AdviceComponent { parent() }"#,
        context: #"extension AdviceParent { ADVICE }"#
    )
    static let moduleThroughParent = (
        code: #"adviceComponent.adviceModule"#,
        context: #"extension AdviceParent { func checkedReach() -> AdviceModule { ADVICE } }"#
    )
    static let foreignModule = (
        code: #".module { AdviceModule($0) }"#,
        context: #"func checkedModule() -> AdviceComponent { AdviceComponent()ADVICE }"#
    )
    static let mainActorAccessor = (
        code: #"@MainActor var adviceScreenModule: AdviceScreenModule { module() }"#,
        context: #"extension AdviceComponent { ADVICE }"#
    )
    static let hostConformance = (
        code: #"extension AdviceParent: AdviceHost"#,
        context: #"ADVICE { func adviceGreeting() -> String { "hello" } }"#
    )
    static let hostParent = (
        code: #".parent(adviceHostComponent)"#,
        context: #"""
        func checkedHost(adviceHostComponent: AdviceHostingComponent) -> AdviceHostedComponent {
            AdviceHostedComponent()ADVICE
        }
        """#
    )
}

/// Each message that suggests code, triggered with concrete types: it prints the code that
/// `Advice` holds, which `.ci/check-message-advice` compiles.
@Suite("The code a message suggests is the code that compiles")
struct MessageAdviceTests {
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("overriding a single that builds a class shows the single that builds the protocol")
    func singleOfProtocol() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AdviceComponent().overriding {
                $0.advice.label()
            } with: {
                AdviceFakeLabel()
            }
        }
        #expect(standardError(of: result).contains("`\(Advice.singleOfProtocol.code)`"))
    }

    @Test("overriding a keyed single that builds a class shows the keyed single that builds the protocol")
    func keyedSingleOfProtocol() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AdviceComponent().overriding {
                $0.advice.named("a")
            } with: {
                AdviceFakeLabel()
            }
        }
        #expect(standardError(of: result).contains("`\(Advice.keyedSingleOfProtocol.code)`"))
    }

    @Test("overriding an async single that builds a class shows the cast that ends its factory")
    func asyncSingleOfProtocol() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = await AdviceComponent().overriding {
                await $0.advice.loaded()
            } with: {
                AdviceFakeLabel()
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "end its factory with `\(Advice.asyncSingleOfProtocol.code)`, after what it awaits"))
    }

    @Test("overriding a weak that builds a class shows the weak of the class-bound protocol")
    func weakOfProtocol() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AdviceComponent().overriding {
                $0.advice.feed()
            } with: {
                AdviceFakeFeed()
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "If `AdviceFeed` is `Sendable` and requires `AnyObject`, make the strategy build `any AdviceFeed`"
            )
        )
        #expect(message.contains("`\(Advice.weakOfProtocol.code)`"))
    }

    @Test("overriding a provider of a Sendable closure with a closure that is not shows the Sendable type")
    func sendableClosure() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AdviceComponent().overriding {
                $0.advice.validator()
            } with: {
                { _ in false }
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("its `single` builds `@Sendable (String) -> Bool`"))
        #expect(message.contains("end it with `\(Advice.sendableClosure.code)`"))
    }
    #endif

    @Test("the override that the message about a Sendable closure suggests replaces the provider")
    func sendableClosureFixWorks() {
        let cast = AdviceComponent().overriding {
            $0.advice.validator()
        } with: {
            { _ in false } as @Sendable (String) -> Bool
        }
        #expect(!cast.advice.validator()("a"))
        let marked = AdviceComponent().overriding {
            $0.advice.validator()
        } with: {
            { @Sendable _ in false }
        }
        #expect(!marked.advice.validator()("a"))
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a missing parent shows the registration of the parent")
    func missingParent() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AdviceComponent().host
        }
        #expect(standardError(of: result).contains("`\(Advice.missingParent.code)`"))
    }

    @Test("a missing host shows the conformance of an ancestor and the registration under a host")
    func missingHost() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AdviceHostedComponent().parent(AdviceParent()).host
        }
        let message = standardError(of: result)
        #expect(message.contains("`\(Advice.hostConformance.code)`"))
        #expect(message.contains("`\(Advice.hostParent.code)`"))
    }

    @Test("a module asked of another component shows the accessors that reach it")
    func moduleOfAnotherComponent() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AdviceParent().uncachedModule(of: AdviceModule.self)
        }
        let message = standardError(of: result)
        #expect(message.contains("`\(Advice.moduleAccessorOnOwner.code)`"))
        #expect(message.contains("`\(Advice.parentAccessor.code)`"))
        #expect(message.contains("`\(Advice.moduleThroughParent.code)`"))
    }

    @Test("a module made for another component shows the registration that makes it for this one")
    func foreignModule() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let other = AdviceComponent()
            AdviceComponent().module { _ in AdviceModule(other) }
        }
        #expect(standardError(of: result).contains("`\(Advice.foreignModule.code)`"))
    }

    @Test("a main-actor module asked for off the main thread shows the main-actor accessor")
    func mainActorAccessor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let component = AdviceComponent()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                _ = component.uncachedModule(of: AdviceScreenModule.self)
            }
            group.wait()
        }
        #expect(standardError(of: result).contains("`\(Advice.mainActorAccessor.code)`"))
    }
    #endif
}

// MARK: Fixtures (compiled by .ci/check-message-advice)

protocol AdviceDescribed: Sendable {}
final class AdviceLabel: AdviceDescribed {}
final class AdviceFakeLabel: AdviceDescribed {}

func loadAdviceLabel() async -> AdviceLabel { AdviceLabel() }

protocol AdviceFeed: AnyObject, Sendable {}
final class AdviceLiveFeed: AdviceFeed {}
final class AdviceFakeFeed: AdviceFeed {}

final class AdviceParent: Component, @unchecked Sendable {}

final class AdviceComponent: Component, @unchecked Sendable {
    var advice: AdviceModule { module() }
    @MainActor var screens: AdviceScreenModule { module() }
    var host: AdviceParent { parent() }
}

final class AdviceModule: Module<AdviceComponent> {
    // Each builds a class, which becomes the provider's existential on return.
    func label() -> any AdviceDescribed { single { AdviceLabel() } }
    func named(_ name: String) -> any AdviceDescribed { single(key: name) { AdviceLabel() } }
    func loaded() async -> any AdviceDescribed { await single { await loadAdviceLabel() } }
    func feed() -> any AdviceFeed { weak { AdviceLiveFeed() } }
    func validator() -> @Sendable (String) -> Bool { single { { _ in true } } }
}

final class AdviceScreenModule: MainActorModule<AdviceComponent> {
    func title() -> String { transient { "advice" } }
}

protocol AdviceHost: AnyObject, Sendable {
    func adviceGreeting() -> String
}

/// A component that hosts what `AdviceHostedComponent` needs.
final class AdviceHostingComponent: Component, AdviceHost, @unchecked Sendable {
    func adviceGreeting() -> String { "hosted" }
}

final class AdviceHostedComponent: Component, @unchecked Sendable {
    var host: any AdviceHost { ancestor() }
}
