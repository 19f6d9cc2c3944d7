import Dirk
import DirkTestSupport
import Testing

@Suite("Handles that call themselves")
struct HandleRecursionTests {
    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "a provider handle called from within its own resolution stops with the path",
        arguments: SelfCallingHandle.allCases)
    func selfCallingHandleTraps(_ handle: SelfCallingHandle) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [handle] in
            armExitTestWatchdog()
            await handle.callItself()
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: dependency cycle: \(handle.typeName) -> \(handle.typeName)."),
            "\(handle): \(message)")
        #expect(message.contains("`\(handle.typeName)` of `\(handle.componentName)` calls itself"))
        #expect(message.contains("A handle resolves its value when it is called or first read"))
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/HandleRecursionTests.swift:"), "\(handle): \(trap)")
    }
    #endif

    @Test("a provider handle may call another one made elsewhere, of the same type")
    func handleCallsAnotherHandle() {
        let component = TestComponent()
        let inner = component.provider { $0.things.transient() }
        let outer = component.provider { _ in inner() }
        #expect(outer() !== outer())
        #expect(component.counter.count == 2)
    }

    @Test("a provider handle may call another one made on the same line")
    func handleCallsAnotherOnTheSameLine() {
        let component = TestComponent()
        let inner = HandleHolder<Provider<Thing>>()
        // swift-format-ignore
        let (outer, made) = (component.provider { _ in inner.handle!() }, component.provider { $0.things.transient() })
        inner.handle = made
        #expect(outer() !== outer())
        #expect(component.counter.count == 2)
    }

    @Test("a provider handle called again through a single being configured gets that single's instance")
    func handleThroughConfigure() {
        let component = PagesComponent()
        let home = component.pages.homeHandle()()
        #expect(home.link?.back === home, "the toolbar that home's configure: built refers to home")
        #expect(component.pages.home() === home)
    }
}

final class PagesComponent: Component, @unchecked Sendable {
    var pages: PagesModule { module() }
}

/// `home()` is configured with a toolbar, which a transient builds from a handle to `home()`: the
/// handle's second call comes back through `home()`'s cell, which hands over the instance being
/// configured.
class PagesModule: Module<PagesComponent> {
    func home() -> Thing { single({ Thing() }, configure: { home, c in home.link = c.pages.toolbar() }) }

    func toolbar() -> Thing {
        transient { c in
            let toolbar = Thing()
            toolbar.back = c.pages.homeHandle()()
            return toolbar
        }
    }

    func homeHandle() -> Provider<Thing> { component.provider { $0.pages.home() } }
}

/// Holds a handle whose resolution calls the handle itself.
final class HandleHolder<Handle>: @unchecked Sendable {
    var handle: Handle?
}

/// The handles that resolve anew on every call, each made to call itself.
enum SelfCallingHandle: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case provider, mainActorProvider, asyncProvider

    var testDescription: String { rawValue }

    var typeName: String {
        switch self {
        case .provider: "Provider<Thing>"
        case .mainActorProvider: "MainActorProvider<ScreenViewModel>"
        case .asyncProvider: "AsyncProvider<Database, Never>"
        }
    }

    var componentName: String {
        switch self {
        case .provider: "TestComponent"
        case .mainActorProvider: "ScreenComponent"
        case .asyncProvider: "DatabaseComponent"
        }
    }

    /// Makes the handle and calls it; it never returns.
    func callItself() async {
        switch self {
        case .provider:
            let component = TestComponent()
            let holder = HandleHolder<Provider<Thing>>()
            holder.handle = component.provider { _ in holder.handle!() }
            _ = holder.handle!()
            withExtendedLifetime(component) {}
        case .mainActorProvider:
            let component = ScreenComponent()
            let holder = HandleHolder<MainActorProvider<ScreenViewModel>>()
            holder.handle = component.mainActorProvider { _ in holder.handle!() }
            await MainActor.run { _ = holder.handle!() }
            withExtendedLifetime(component) {}
        case .asyncProvider:
            let component = DatabaseComponent()
            let holder = HandleHolder<AsyncProvider<Database, Never>>()
            holder.handle = component.provider { _ in await holder.handle!() }
            _ = await holder.handle!()
            withExtendedLifetime(component) {}
        }
    }
}
