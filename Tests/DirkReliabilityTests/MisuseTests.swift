import Dirk
import DirkTestSupport
import Dispatch
import Testing

/// Every way a program can misuse Dirk that Dirk stops it for. `Docs/Errors.md` shows each
/// message; this catalog checks that each one says what went wrong and how to fix it.
enum Misuse: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case constructionCycle, recursiveTransient, cycleAcrossThreads, componentReleased
    case missingParent, parentOfTheWrongType, parentCycle, duplicateParent, lateParent
    case lateModule, wrongComponent, foreignModule, reentrantReset, lazyReadWhileResolving
    case duplicateContribution

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
            ["`MisuseComponent` has no parent of type `MisuseParent`", "It has no parents.", ".parent {"]
        case .parentOfTheWrongType:
            ["has no parent of type `MisuseParent`", "Its parents are `OtherParent`.", ".parent {"]
        case .parentCycle:
            ["cannot become a parent of `MisuseParent`", "Register parents from the wider scope down"]
        case .duplicateParent:
            ["already has a parent registered as `MisuseParent`", "Register it once"]
        case .lateParent:
            [
                "gained the parent `OtherParent` after it had already looked up a parent",
                "before the first resolution",
            ]
        case .lateModule:
            [
                "registered a module for `MisuseModule` after that module was already in use",
                "before the first resolution",
            ]
        case .wrongComponent:
            [
                "`OtherParent` asked for the module `MisuseModule`, which is a `Module<MisuseComponent>`",
                "declare the accessor on `MisuseComponent`",
            ]
        case .foreignModule:
            [
                "was given a `MisuseModule` that was created for another component",
                ".module { MisuseModule($0) }",
            ]
        case .reentrantReset:
            [
                "`MisuseComponent.reset()` was called while `MisuseModule.resets()`",
                "Call `reset()` outside providers",
            ]
        case .lazyReadWhileResolving:
            [
                "a `Lazy<Canary>` made at DirkReliabilityTests/MisuseTests.swift:",
                "was read while it was resolving its own value", "Read it after the provider",
            ]
        case .duplicateContribution:
            [
                "`MisuseComponent` contributed `Canary` under the key \"first\", which `MisuseParent` already uses",
                "choose another key",
            ]
        }
    }

    /// Commits the misuse; it never returns.
    func commit() {
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
            let component = MisuseComponent().parent { OtherParent() }
            _ = component.parentComponent
        case .parentCycle:
            let parent = MisuseParent()
            let child = MisuseComponent().parent { parent }
            parent.parent { child }
        case .duplicateParent:
            MisuseComponent().parent { MisuseParent() }.parent { MisuseParent() }
        case .lateParent:
            let grandparent = MisuseParent()
            let middle = OtherParent().parent { grandparent }
            let component = MisuseComponent().parent { middle }
            _ = component.parentComponent
            component.parent { OtherParent() }
        case .lateModule:
            let component = MisuseComponent()
            _ = component.misuse.plain()
            component.module { MisuseModule($0) }
        case .wrongComponent:
            _ = OtherParent().misuse
        case .foreignModule:
            let other = MisuseComponent()
            MisuseComponent().module { _ in MisuseModule(other) }
        case .reentrantReset:
            let component = MisuseComponent()
            _ = component.misuse.resets()
        case .lazyReadWhileResolving:
            let component = MisuseComponent()
            let holder = LazyCanary()
            holder.handle = component.misuse.lazy { _ in holder.handle!.value }
            _ = holder.handle!.value
        case .duplicateContribution:
            let parent = MisuseParent().contribute(Canary.self, key: "first") { _ in Canary() }
            MisuseComponent().parent { parent }.contribute(Canary.self, key: "first") { _ in Canary() }
        }
    }
}

@Suite("Every misuse explained")
struct MisuseTests {
    @Test("the message names what went wrong and how to fix it", arguments: Misuse.allCases)
    func misuseIsExplained(misuse: Misuse) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [misuse] in
            misuse.commit()
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: "), "\(misuse): \(message)")
        for phrase in misuse.expectedPhrases {
            #expect(message.contains(phrase), "\(misuse): missing \"\(phrase)\" in \(message)")
        }
    }
}

// MARK: Fixtures

/// Holds a Lazy whose resolution reads the Lazy itself.
final class LazyCanary: @unchecked Sendable {
    var handle: Lazy<Canary>?
}

final class MisuseParent: Component, @unchecked Sendable {}

final class OtherParent: Component, @unchecked Sendable {
    var misuse: MisuseModule { module() }
}

final class MisuseComponent: Component, @unchecked Sendable {
    var misuse: MisuseModule { module() }
    var parentComponent: MisuseParent { parent() }
}

final class MisuseModule: Module<MisuseComponent>, @unchecked Sendable {
    let leftStarted = DispatchSemaphore(value: 0)
    let rightStarted = DispatchSemaphore(value: 0)

    func plain() -> Canary { transient { Canary() } }
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

    func resets() -> Canary {
        transient { c in
            c.reset()
            return Canary()
        }
    }
}
