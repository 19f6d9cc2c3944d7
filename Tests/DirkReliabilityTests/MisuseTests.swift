import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// Every way a program can misuse Dirk that Dirk stops it for. The ErrorMessages article shows
/// each message; this catalog checks that each one says what went wrong and how to fix it, and
/// points at the user's file, never at one of Dirk's.
enum Misuse: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case constructionCycle, recursiveTransient, cycleAcrossThreads, componentReleased
    case missingParent, parentOfTheWrongType, parentCycle, duplicateParent, lateParent
    case lateModule, wrongComponent, foreignModule, reentrantReset, lazyReadWhileResolving
    case duplicateContribution, providerClash, keyReentered, usedWhileDeinitializing
    case handleAfterRelease, lateOverride, overrideCallingNoProvider, overrideCallingSeveralProviders
    case overrideOfAnAncestor, overrideOfAnotherType, foreignError, mainActorModuleOffTheMainActor
    case moduleOfAnotherType, parentOfAnotherType, lateParentDuplicateContribution
    case lateSubclassModule, mainActorModuleRegisteredOffTheMainActor
    case contributionAfterRelease

    var testDescription: String { rawValue }

    /// Phrases the message must contain: what went wrong, then how to fix it.
    var expectedPhrases: [String] {
        switch self {
        case .constructionCycle:
            [
                "dependency cycle: MisuseModule.first() -> MisuseModule.second() -> MisuseModule.first()",
                "configure:",
            ]
        case .recursiveTransient:
            ["calls itself while it is being built", "plain function"]
        case .cycleAcrossThreads:
            ["dependency cycle across threads", "configure:"]
        case .componentReleased:
            [
                "was called after its component `MisuseComponent` was released",
                "keep a reference to the component",
            ]
        case .missingParent:
            [
                "`MisuseComponent` has no parent of type `MisuseParent`",
                "The accessor at DirkReliabilityTests/MisuseTests.swift:", "It has no parents.",
                ".parent(misuseParent)",
            ]
        case .parentOfTheWrongType:
            [
                "has no parent of type `MisuseParent`",
                "It searched its ancestors, nearest first: `OtherParent` (its parents given from",
                ".parent(misuseParent)",
            ]
        case .parentCycle:
            ["cannot become a parent of `MisuseParent`", "Register parents from the wider scope down"]
        case .duplicateParent:
            ["already has a parent registered as `MisuseParent`", "Register it once"]
        case .lateParent:
            [
                "gained the parent `OtherParent` after a parent lookup had searched its parents",
                "before the first resolution",
            ]
        case .lateModule:
            [
                "registered a module for `MisuseModule` after `MisuseModule` was already in use",
                "before the first resolution",
            ]
        case .wrongComponent:
            [
                "`OtherParent` was asked for the module `MisuseModule`, a module of `MisuseComponent`",
                "Declare the accessor on `MisuseComponent`",
                "If `OtherParent` is a child of `MisuseComponent`, reach the module through a parent accessor of `OtherParent`",
            ]
        case .foreignModule:
            [
                "was given the module `MisuseModule`, which was created for another component",
                ".module { MisuseModule($0) }",
            ]
        case .reentrantReset:
            [
                "`MisuseComponent.reset()` was called while `MisuseModule.resets()`",
                "Call `reset()` outside providers",
            ]
        case .lazyReadWhileResolving:
            [
                "a `Lazy<Canary>` of `MisuseComponent`, made at DirkReliabilityTests/MisuseTests.swift:",
                "was read while it was resolving its own value", "Read it after the provider",
            ]
        case .duplicateContribution:
            [
                "`MisuseComponent` contributed `Canary` under the key \"first\", which `MisuseParent` already uses",
                "choose another key",
            ]
        case .providerClash:
            ["two providers named `MisuseModule.clash(_:)`", "Give the providers different names"]
        case .keyReentered:
            ["the key of `MisuseModule.keyed(_:)` of `MisuseComponent` called", "Make the key a plain value"]
        case .usedWhileDeinitializing:
            [
                "was used while `DeinitMisuseComponent` was being deinitialized",
                "Keep what the `deinit` needs",
            ]
        case .handleAfterRelease:
            ["was read after its component `MisuseComponent` was released", "keep the component"]
        case .lateOverride:
            [
                "overrode `MisuseModule.cached()` after that provider was already used",
                "before the first resolution",
            ]
        case .overrideCallingNoProvider:
            ["called no provider", "Call exactly one provider in it"]
        case .overrideCallingSeveralProviders:
            [
                "called `MisuseModule.plain()` and then `MisuseModule.first()`",
                "its own `overriding(_:with:)` call",
            ]
        case .overrideOfAnAncestor:
            [
                "which belongs to `MisuseComponent`, one of its ancestors",
                "override it on `MisuseComponent` itself",
            ]
        case .overrideOfAnotherType:
            [
                "cannot override `MisuseModule.described()`: its `single` builds `Canary`",
                "`single { Canary() as any CustomStringConvertible }`",
            ]
        case .foreignError:
            [
                "Dirk: `MisuseModule.typed()` of `MisuseComponent`, whose strategy is called at DirkReliabilityTests/MisuseTests.swift:",
                "got an error of type `OtherMisuseError`, which it cannot throw: it throws only `MisuseError`",
                "Only the factory of the `overriding(_:with:)` of `MisuseModule.typed()` at DirkReliabilityTests/MisuseTests.swift:",
                "Make the override's factory throw only `MisuseError`",
            ]
        case .mainActorModuleOffTheMainActor:
            [
                "a `MainActorModule`, on a thread other than the main thread",
                "declare the accessor that returns it `@MainActor`",
            ]
        case .mainActorModuleRegisteredOffTheMainActor:
            [
                "was given the module `ScreenMisuseModule`, a `MainActorModule`, on a thread other than the main thread",
                "Register it on the main actor",
            ]
        case .moduleOfAnotherType:
            [
                "was given a module `MisuseModule` to register as `StubMisuseModule`, which it is not",
                "register the module as its own type or as one of its superclasses",
            ]
        case .parentOfAnotherType:
            [
                "was given a parent `MisuseParent` to register as `FakeMisuseParent`, which it is not",
                "register the parent as its own type or as one of its superclasses",
            ]
        case .lateSubclassModule:
            [
                "registered `StubMisuseModule` for `MisuseModule` after `MisuseModule` was already in use",
                "before the first resolution",
            ]
        case .lateParentDuplicateContribution:
            [
                "the collection of `Canary` holds two contributions under the key \"late\", one from `MisuseParent` and one from `MisuseComponent`",
                "`MisuseComponent` contributed before `MisuseParent` became its ancestor",
                "choose another key for one of them", "register parents before contributing",
            ]
        case .contributionAfterRelease:
            [
                "the contribution \"gone\" to the collection of `Canary` was resolved after its component `MisuseParent` was released",
                "keep the component for as long as you resolve its contributions",
            ]
        }
    }

    /// Commits the misuse; it never returns.
    func commit() async {
        switch self {
        case .constructionCycle:
            let component = MisuseComponent()
            _ = component.misuse.first()
        case .recursiveTransient:
            let component = MisuseComponent()
            _ = component.misuse.recursive(3)
        case .cycleAcrossThreads:
            let component = MisuseComponent()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { _ = component.misuse.left() }
            DispatchQueue.global().async(group: group) { _ = component.misuse.right() }
            group.wait()
        case .componentReleased:
            var component: MisuseComponent? = MisuseComponent()
            let module = component!.misuse
            component = nil
            _ = module.plain()
        case .missingParent:
            let component = MisuseComponent()
            _ = component.parentComponent
        case .parentOfTheWrongType:
            let component = MisuseComponent().parent(OtherParent())
            _ = component.parentComponent
        case .parentCycle:
            let parent = MisuseParent()
            let child = MisuseComponent().parent(parent)
            parent.parent(child)
        case .duplicateParent:
            MisuseComponent().parent(MisuseParent()).parent(MisuseParent())
        case .lateParent:
            let grandparent = MisuseParent()
            let middle = OtherParent().parent(grandparent)
            let component = MisuseComponent().parent(middle)
            _ = component.parentComponent
            component.parent(OtherParent())
        case .lateModule:
            let component = MisuseComponent()
            _ = component.misuse.plain()
            component.module { MisuseModule($0) }
        case .wrongComponent:
            // The compiler refuses `var misuse: MisuseModule { module() }` in `OtherParent`.
            _ = OtherParent().uncachedModule(of: MisuseModule.self)
        case .foreignModule:
            let other = MisuseComponent()
            MisuseComponent().module { _ in MisuseModule(other) }
        case .reentrantReset:
            let component = MisuseComponent()
            _ = component.misuse.resets()
        case .lazyReadWhileResolving:
            let component = MisuseComponent()
            let holder = LazyCanary()
            holder.handle = component.lazy { _ in holder.handle!.value }
            _ = holder.handle!.value
        case .duplicateContribution:
            let parent = MisuseParent().contribute(Canary.self, key: "first") { _ in Canary() }
            MisuseComponent().parent(parent).contribute(Canary.self, key: "first") { _ in Canary() }
        case .providerClash:
            let component = MisuseComponent()
            _ = component.misuse.clash(Int8(1))
            _ = component.misuse.clash(UInt(1))
        case .keyReentered:
            let component = MisuseComponent()
            _ = component.misuse.keyed(ReentrantKey(component: component))
        case .usedWhileDeinitializing:
            var component: DeinitMisuseComponent? = DeinitMisuseComponent()
            withExtendedLifetime(component) {}
            component = nil
        case .handleAfterRelease:
            var component: MisuseComponent? = MisuseComponent()
            let handle = component!.lazy { $0.misuse.plain() }
            component = nil
            _ = handle.value
        case .lateOverride:
            let component = MisuseComponent()
            _ = component.misuse.cached()
            component.overriding {
                $0.misuse.cached()
            } with: {
                Canary()
            }
        case .overrideCallingNoProvider:
            MisuseComponent().overriding { _ in
                Canary()
            } with: {
                Canary()
            }
        case .overrideCallingSeveralProviders:
            MisuseComponent().overriding { c in
                _ = c.misuse.plain()
                return c.misuse.first()
            } with: {
                Canary()
            }
        case .overrideOfAnAncestor:
            let parent = MisuseComponent()
            OtherParent().parent(parent).overriding {
                $0.ancestor.misuse.plain()
            } with: {
                Canary()
            }
        case .overrideOfAnotherType:
            MisuseComponent().overriding {
                $0.misuse.described()
            } with: {
                "fake"
            }
        case .foreignError:
            let component = MisuseComponent()
            component.overriding {
                try $0.misuse.typed()
            } with: {
                throw OtherMisuseError()
            }
        case .mainActorModuleOffTheMainActor:
            let component = MisuseComponent()
            let group = DispatchGroup()
            // An accessor that is not main-actor isolated does not compile: the check guards a
            // caller that skips it (Swift 5 mode with minimal checking).
            DispatchQueue.global().async(group: group) {
                _ = component.uncachedModule(of: ScreenMisuseModule.self)
            }
            group.wait()
        case .mainActorModuleRegisteredOffTheMainActor:
            // Made on the main actor, as its initializer must be, and registered off it.
            let component = MisuseComponent()
            let module = await MainActor.run { ScreenMisuseModule(component) }
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { component.module { _ in module } }
            group.wait()
        case .moduleOfAnotherType:
            // A subclass's type, in a variable of the base class's metatype.
            let type: MisuseModule.Type = StubMisuseModule.self
            MisuseComponent().module(type) { MisuseModule($0) }
        case .parentOfAnotherType:
            let type: MisuseParent.Type = FakeMisuseParent.self
            MisuseComponent().parent(MisuseParent(), as: type)
        case .lateSubclassModule:
            let component = MisuseComponent()
            _ = component.misuse.plain()
            component.module { StubMisuseModule($0) }
        case .lateParentDuplicateContribution:
            // The child contributes first; the parent that brings the same key comes later, so
            // listing the collection finds the duplicate.
            let component = MisuseComponent().contribute(Canary.self, key: "late") { _ in Canary() }
            let parent = MisuseParent().contribute(Canary.self, key: "late") { _ in Canary() }
            component.parent(parent)
            _ = component.contributions(of: Canary.self)
        case .contributionAfterRelease:
            var parent: MisuseParent? = MisuseParent().contribute(Canary.self, key: "gone") { _ in Canary() }
            let listed = parent!.contributions(of: Canary.self)
            parent = nil
            _ = listed[0].resolve()
        }
    }
}

@Suite("Every misuse explained")
struct MisuseTests {
    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test("the message names what went wrong and how to fix it", arguments: Misuse.allCases)
    func misuseIsExplained(misuse: Misuse) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [misuse] in
            // Some misuses once hung (cycles across threads, keys that call their provider).
            armExitTestWatchdog()
            await misuse.commit()
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: "), "\(misuse): \(message)")
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(
            trap.hasPrefix("DirkReliabilityTests/"),
            "\(misuse): the trap is not reported at the user's file: \(trap)")
        for phrase in misuse.expectedPhrases {
            #expect(message.contains(phrase), "\(misuse): missing \"\(phrase)\" in \(message)")
        }
    }
    #endif
}

// MARK: Fixtures

/// Holds a Lazy whose resolution reads the Lazy itself.
final class LazyCanary: @unchecked Sendable {
    var handle: Lazy<Canary>?
}

class MisuseParent: Component, @unchecked Sendable {}

final class FakeMisuseParent: MisuseParent, @unchecked Sendable {}

final class OtherParent: Component, @unchecked Sendable {
    var ancestor: MisuseComponent { parent() }
}

struct MisuseError: Error {}
struct OtherMisuseError: Error {}

/// A key whose hashing calls the keyed provider it is a key of.
struct ReentrantKey: Hashable, @unchecked Sendable {
    let component: MisuseComponent

    static func == (lhs: ReentrantKey, rhs: ReentrantKey) -> Bool { true }

    func hash(into hasher: inout Hasher) {
        _ = component.misuse.keyed(self)
    }
}

final class DeinitMisuseComponent: Component, @unchecked Sendable {
    var misuse: DeinitMisuseModule { module() }

    deinit {
        _ = misuse.canary()
    }
}

final class DeinitMisuseModule: Module<DeinitMisuseComponent> {
    func canary() -> Canary { single { Canary() } }
}

final class ScreenMisuseModule: MainActorModule<MisuseComponent> {
    func canary() -> Canary { transient { Canary() } }
}

final class MisuseComponent: Component, @unchecked Sendable {
    var misuse: MisuseModule { module() }
    @MainActor var screens: ScreenMisuseModule { module() }
    var parentComponent: MisuseParent { parent() }
}

final class StubMisuseModule: MisuseModule {}

class MisuseModule: Module<MisuseComponent> {
    let leftStarted = DispatchSemaphore(value: 0)
    let rightStarted = DispatchSemaphore(value: 0)

    func plain() -> Canary { transient { Canary() } }
    func cached() -> Canary { single { Canary() } }
    func first() -> Canary { single { c in c.misuse.second() } }
    func second() -> Canary { single { c in c.misuse.first() } }
    func recursive(_ depth: Int) -> Canary { transient { c in c.misuse.recursive(depth - 1) } }

    func left() -> Canary {
        single { c in
            c.misuse.leftStarted.signal()
            c.misuse.rightStarted.wait()
            return c.misuse.right()
        }
    }

    func right() -> Canary {
        single { c in
            c.misuse.rightStarted.signal()
            c.misuse.leftStarted.wait()
            return c.misuse.left()
        }
    }

    func keyed(_ key: ReentrantKey) -> Canary { single(key: key) { Canary() } }
    // Builds a `Canary`, which becomes the provider's existential on return.
    func described() -> any CustomStringConvertible { single { Canary() } }
    func typed() throws(MisuseError) -> Canary { try single { () throws(MisuseError) in Canary() } }

    // Two providers that generated code places at one file, line and column, with different
    // strategies.
    #sourceLocation(file:"DirkReliabilityTests/Generated.swift",line:1)
    func clash(_ key: Int8) -> Canary { scoped { Canary() } }
    #sourceLocation()
    #sourceLocation(file:"DirkReliabilityTests/Generated.swift",line:1)
    func clash(_ key: UInt) -> Canary { single { Canary() } }
    #sourceLocation()

    func resets() -> Canary {
        transient { c in
            c.reset()
            return Canary()
        }
    }
}

extension Canary: CustomStringConvertible {
    var description: String { "a canary" }
}
