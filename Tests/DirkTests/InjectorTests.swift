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
}

// MARK: Fixtures

/// A protocol that groups properties every tracked screen gets.
protocol TrackedScreen: AnyObject {
    var tracker: Thing? { get set }
}

let trackedInjection = Injector<any TrackedScreen, TestComponent>()
    .inject(\.tracker) { $0.things.single() }

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
    .inject(\.thing) { $0.things.single() }
    .inject(\.other) { _ in Other() }

let detailInjection = Injector<DetailController, TestComponent>()
    .including(screenInjection) { $0 }
    .inject(\.detail) { $0.things.transient() }
