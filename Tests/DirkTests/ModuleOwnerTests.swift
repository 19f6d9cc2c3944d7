import Dirk
import DirkTestSupport
import Testing

/// The compiler refuses an accessor of another component's module (`.ci/check-module-owner`
/// proves it); these tests check that the patterns it accepts work, and that the run-time check
/// behind it explains itself.
@Suite("Modules belong to their component")
struct ModuleOwnerTests {
    @Test("an accessor declared by a component class serves an instance of a subclass")
    func accessorThroughASubclass() {
        let component: OwnerAppComponent = FakeOwnerAppComponent()
        #expect(component.greetings.greeting() == "hello")
        #expect(component.greetings === component.greetings)
    }

    @Test("a subclass reaches its base component's module through the base type")
    func baseModuleOnASubclass() {
        let component = FakeOwnerAppComponent()
        #expect(component.quiet.greeting() == "shh")
        #expect(component.quiet === component.quiet)
        #expect(component.greetings !== component.quiet, "each module type has its own module")
    }

    @Test("a subclass registers a base component's module through the base type")
    func baseModuleRegisteredOnASubclass() {
        let component = FakeOwnerAppComponent()
        (component as OwnerAppComponent).module { QuietOwnerGreetingModule($0) }
        #expect(component.greetings.greeting() == "shh")
        #expect(component.greetings === component.quiet, "the registered module serves both accessors")
    }

    @Test("a main-actor module's accessor works on the main actor")
    @MainActor
    func mainActorModuleAccessor() {
        let component = OwnerAppComponent()
        #expect(component.banners.banner() === component.banners.banner())
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a module created for another component stops the program, naming where it belongs")
    func moduleOfAnotherComponentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // The compiler refuses `var session: OwnerSessionModule { module() }` in the app.
            _ = OwnerAppComponent().uncachedModule(of: OwnerSessionModule.self)
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `OwnerAppComponent` was asked for the module `OwnerSessionModule`, a module of `OwnerSessionComponent`"
            ))
        #expect(
            message.contains(
                "Declare the accessor on `OwnerSessionComponent`, where the compiler checks it: "
                    + "`var ownerSessionModule: OwnerSessionModule { module() }`"))
        // The parent accessor is offered only for the case where it does not invert the hierarchy.
        #expect(
            message.contains("If `OwnerAppComponent` is a child of `OwnerSessionComponent`, reach the module")
        )
        #expect(message.contains("ModuleOwnerTests.swift:"), "names the caller's file")
    }
    #endif
}

// MARK: Fixtures

class OwnerAppComponent: Component, @unchecked Sendable {
    var greetings: OwnerGreetingModule { module() }
    @MainActor var banners: OwnerBannerModule { module() }
}

final class FakeOwnerAppComponent: OwnerAppComponent, @unchecked Sendable {
    // A module of the base component, asked for through the base type.
    var quiet: QuietOwnerGreetingModule { (self as OwnerAppComponent).module() }
}

class OwnerGreetingModule: Module<OwnerAppComponent> {
    func greeting() -> String { single { "hello" } }
}

final class QuietOwnerGreetingModule: OwnerGreetingModule {
    override func greeting() -> String { single { "shh" } }
}

@MainActor final class OwnerBanner {}

final class OwnerBannerModule: MainActorModule<OwnerAppComponent> {
    func banner() -> OwnerBanner { single { OwnerBanner() } }
}

final class OwnerSessionComponent: Component, @unchecked Sendable {
    var app: OwnerAppComponent { parent() }
    var session: OwnerSessionModule { module() }
}

final class OwnerSessionModule: Module<OwnerSessionComponent> {}
