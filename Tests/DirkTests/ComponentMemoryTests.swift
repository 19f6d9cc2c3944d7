import Dirk
import DirkTestSupport
import Testing

/// A component keeps its lock, its state and its lock-free tables in its own memory, which its
/// modules reach through the `unowned` reference that keeps that memory allocated: these tests
/// check the layout, and that a module which outlives its component, or races its release, never
/// touches the state that the release destroys. AddressSanitizer runs them in CI.
@Suite("A component's own memory")
struct ComponentMemoryTests {
    @Test("the storage lies first in the component, its words first and its state after them")
    func layout() {
        #expect(MemoryComponent().storageLayoutHolds)
        #expect(MemorySubcomponent().storageLayoutHolds, "a subclass's own properties come after")
    }

    @Test("a module that outlives its component releases its slots without the component's state")
    func moduleOutlivesItsComponent() {
        weak var instance: Thing?
        weak var released: MemoryModule?
        do {
            var module: MemoryModule?
            do {
                let component = MemoryComponent()
                module = MemoryModule(component)
                instance = module?.single()
                #expect(component.dependencyGraph().modules == ["MemoryModule"])
            }
            #expect(instance == nil, "the component's release emptied the module's caches")
            released = module
            #expect(released != nil)
            module = nil
        }
        #expect(released == nil)
    }

    @Test("modules released on other threads while their component is released leave no slots behind")
    func modulesRacingTheRelease() {
        withWatchdog {
            for _ in 0..<stressRounds(200) {
                weak var instance: Thing?
                do {
                    let component = Locked<MemoryComponent?>(MemoryComponent())
                    let modules = Locked(
                        component.withLock { owner in (0..<3).map { _ in MemoryModule(owner!) } })
                    instance = modules.withLock { $0[0].single() }
                    _ = modules.withLock { $0.map { $0.single() } }
                    let arrived = Counter()
                    onThreads(4) { index in
                        _ = arrived.increment()
                        while arrived.count < 4 {}
                        if index == 0 {
                            component.withLock { $0 = nil }
                        } else {
                            modules.withLock { _ = $0.popLast() }
                        }
                    }
                    #expect(modules.withLock { $0.isEmpty })
                }
                #expect(instance == nil)
            }
        }
    }

    @Test("a recording child released before its parent stops being one of the parent's recorders")
    func recorderReleasedBeforeItsParent() {
        let parent = MemoryComponent()
        _ = parent.makers.single()
        #expect(parent.observerCount == 0)
        weak var releasedChild: MemoryChildComponent?
        do {
            let child = MemoryChildComponent().parent { parent }.startRecordingDependencies()
            releasedChild = child
            #expect(parent.observerCount == 1)
            _ = child.makers.viaParent()
            #expect(
                child.dependencyGraph().dependencies
                    == [.init(from: "MemoryChildModule.viaParent()", to: "MemoryModule.single()")])
        }
        #expect(releasedChild == nil)
        #expect(parent.observerCount == 0)
        let later = MemoryChildComponent().parent { parent }.startRecordingDependencies()
        _ = later.makers.viaParent()
        #expect(parent.observerCount == 1)
    }
}

class MemoryComponent: Component, @unchecked Sendable {
    var makers: MemoryModule { module() }
}

final class MemorySubcomponent: MemoryComponent, @unchecked Sendable {
    let extra = 42
}

final class MemoryModule: Module<MemoryComponent>, @unchecked Sendable {
    func single() -> Thing { single { Thing(number: 7) } }
}

final class MemoryChildComponent: Component, @unchecked Sendable {
    var parentComponent: MemoryComponent { parent() }
    var makers: MemoryChildModule { module() }
}

final class MemoryChildModule: Module<MemoryChildComponent>, @unchecked Sendable {
    func viaParent() -> Thing { transient { c in c.parentComponent.makers.single() } }
}
