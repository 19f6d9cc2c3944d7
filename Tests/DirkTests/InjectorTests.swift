import Dirk
import DirkTestSupport
import Testing

@Suite("Key-path injection into objects Dirk did not create")
struct InjectorTests {
    @Test("one call fills every declared property from the component's providers")
    func injectFillsProperties() {
        let component = TestComponent()
        let controller = ScreenController()
        screenInjection.inject(into: controller, from: component)
        #expect(controller.thing === component.things.single())
        #expect(controller.other != nil)
    }

    @Test("a subclass reuses its base class's injector and adds its own properties")
    func subclassesIncludeTheirBase() {
        let component = TestComponent()
        let controller = DetailController()
        detailInjection.inject(into: controller, from: component)
        #expect(controller.thing === component.things.single())
        #expect(controller.detail != nil)
        #expect(controller.detail !== controller.thing)
    }

    @Test("a protocol that groups injectable properties is declared once for every conforming type")
    func protocolsGroupProperties() {
        let component = TestComponent()
        let first = DetailController()
        let second = PlainScreen()
        let firstInjection = Injector<DetailController, TestComponent>().including(trackedInjection) { $0 }
        let secondInjection = Injector<PlainScreen, TestComponent>().including(trackedInjection) { $0 }
        firstInjection.inject(into: first, from: component)
        secondInjection.inject(into: second, from: component)
        #expect(first.tracker === component.things.single())
        #expect(second.tracker === first.tracker)
    }

    @Test(
        "one injection is one resolution: its properties share a `scoped` instance, and the next injection gets another"
    )
    func oneInjectionOneResolution() {
        let component = TestComponent()
        let pair = ScopedPair()
        scopedPairInjection.inject(into: pair, from: component)
        #expect(pair.first != nil)
        #expect(pair.first === pair.second)
        let next = ScopedPair()
        scopedPairInjection.inject(into: next, from: component)
        #expect(next.first === next.second)
        #expect(next.first !== pair.first)
    }

    @Test("an injection inside a provider's factory is part of that factory's resolution")
    func injectionInsideAFactory() {
        let component = InjectingComponent()
        let pair = component.injecting.pair()
        #expect(pair.fromFactory != nil)
        #expect(pair.first === pair.fromFactory)
        #expect(pair.second === pair.fromFactory)
        #expect(component.injecting.pair().first !== pair.first, "another resolution, another instance")
    }

    @MainActor
    @Test("a main-actor object is filled from main-actor and plain providers, in one resolution")
    func mainActorInjection() {
        let component = TestComponent()
        let delegate = AppDelegate()
        delegateInjection.inject(into: delegate, from: component)
        #expect(delegate.window === component.windows.window())
        #expect(delegate.thing === component.things.single())
        #expect(
            delegate.first != nil && delegate.first === delegate.second, "one resolution, one scoped instance"
        )
        let next = AppDelegate()
        delegateInjection.inject(into: next, from: component)
        #expect(next.first !== delegate.first, "the next injection is another resolution")
    }

    @MainActor
    @Test("a main-actor injector includes another's properties, on the target seen as a protocol")
    func mainActorInjectorIncludesAnother() {
        let component = TestComponent()
        let delegate = AppDelegate()
        MainActorInjector<AppDelegate, TestComponent>().including(windowedInjection) { $0 }
            .inject(into: delegate, from: component)
        #expect(delegate.window === component.windows.window())
        #expect(delegate.thing == nil, "only what the included injector declares")
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a property whose provider injects the same object again stops the program with the path")
    func injectionRecursionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = InjectionLoop()
            loop.injector = Injector<LoopTarget, InjectingComponent>()
                .injecting(\.thing) { component in
                    loop.injector!.inject(into: loop.target, from: component)
                    return Thing()
                }
            loop.injector!.inject(into: loop.target, from: InjectingComponent())
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: dependency cycle: Injector<LoopTarget>.inject(into:from:) -> Injector<LoopTarget>.inject(into:from:)"
            ))
        #expect(message.contains("fills the same object again while it fills it"))
        #expect(message.contains("Inject an object once"))
    }
    #endif
}

// MARK: Fixtures

/// A main-actor object that Dirk does not create, such as an app delegate.
@MainActor final class AppDelegate: Windowed {
    var window: Window?
    var thing: Thing?
    var first: Thing?
    var second: Thing?
}

/// A main-actor protocol whose property every windowed object gets.
@MainActor protocol Windowed: AnyObject {
    var window: Window? { get set }
}

/// A main-actor object that is not `Sendable` by any other means.
@MainActor final class Window {}

final class WindowModule: MainActorModule<TestComponent> {
    func window() -> Window { single { Window() } }
}

extension TestComponent {
    @MainActor var windows: WindowModule { module() }
}

@MainActor let windowedInjection = MainActorInjector<any Windowed, TestComponent>()
    .injecting(\.window) { $0.windows.window() }

@MainActor let delegateInjection = MainActorInjector<AppDelegate, TestComponent>()
    .injecting(\.window) { $0.windows.window() }
    .injecting(\.thing) { $0.things.single() }
    .injecting(\.first) { $0.things.scoped() }
    .injecting(\.second) { $0.things.scoped() }

/// A protocol that groups properties every tracked screen gets.
protocol TrackedScreen: AnyObject {
    var tracker: Thing? { get set }
}

let trackedInjection = Injector<any TrackedScreen, TestComponent>()
    .injecting(\.tracker) { $0.things.single() }

class ScreenController {
    var thing: Thing?
    var other: Other?
}

final class DetailController: ScreenController, TrackedScreen {
    var detail: Thing?
    var tracker: Thing?
}

final class PlainScreen: TrackedScreen {
    var tracker: Thing?
}

let screenInjection = Injector<ScreenController, TestComponent>()
    .injecting(\.thing) { $0.things.single() }
    .injecting(\.other) { _ in Other() }

let detailInjection = Injector<DetailController, TestComponent>()
    .including(screenInjection) { $0 }
    .injecting(\.detail) { $0.things.transient() }

/// Two properties from one `scoped` provider, and the instance a factory resolved before it
/// injected them.
final class ScopedPair: @unchecked Sendable {
    var first: Thing?
    var second: Thing?
    var fromFactory: Thing?
}

let scopedPairInjection = Injector<ScopedPair, TestComponent>()
    .injecting(\.first) { $0.things.scoped() }
    .injecting(\.second) { $0.things.scoped() }

let injectingPairInjection = Injector<ScopedPair, InjectingComponent>()
    .injecting(\.first) { $0.injecting.scoped() }
    .injecting(\.second) { $0.injecting.scoped() }

final class InjectingComponent: Component, @unchecked Sendable {
    var injecting: InjectingModule { module() }
}

final class InjectingModule: Module<InjectingComponent> {
    func scoped() -> Thing { scoped { Thing() } }
    /// Resolves `scoped()`, then injects a pair whose properties resolve it too.
    func pair() -> ScopedPair {
        transient { c in
            let pair = ScopedPair()
            pair.fromFactory = c.injecting.scoped()
            injectingPairInjection.inject(into: pair, from: c)
            return pair
        }
    }
}

final class LoopTarget: @unchecked Sendable {
    var thing: Thing?
}

/// An injector whose property's provider injects the same target again.
final class InjectionLoop: @unchecked Sendable {
    let target = LoopTarget()
    var injector: Injector<LoopTarget, InjectingComponent>?
}
