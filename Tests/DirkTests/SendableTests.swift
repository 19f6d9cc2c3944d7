import Dirk
import DirkTestSupport
import Testing

/// What the compiler accepts is checked by `.ci/check-sendable`, which also expects a plain
/// module's `single` of a non-`Sendable` class to fail to compile. These tests check that the
/// homes of non-`Sendable` objects behave, and that `configure:` on a `Sendable` type publishes
/// what it sets.
@Suite("Sendable instances")
struct SendableTests {
    @Test("a MainActorModule's single keeps a non-Sendable class and a main-actor class, one each")
    @MainActor
    func mainActorModuleKeepsAnyClass() {
        let component = DeskComponent()
        let drafts = component.desk.drafts()
        #expect(drafts === component.desk.drafts())
        #expect(component.desk.lamp() === component.desk.lamp())
        drafts.lines.append("first")
        #expect(component.desk.drafts().lines == ["first"], "the one instance, mutated in place")
    }

    @Test("a MainActorModule's single(_:configure:) of non-Sendable classes connects them")
    @MainActor
    func mainActorModuleConfigures() {
        let component = DeskComponent()
        let pen = component.desk.pen()
        #expect(pen.paper === component.desk.paper())
        #expect(component.desk.paper().pen === pen)
    }

    @Test("a transient of a non-Sendable class gives each caller its own")
    func transientOfNonSendable() {
        let component = DeskComponent()
        let first = component.notes.note()
        first.lines.append("mine")
        #expect(component.notes.note().lines.isEmpty)
        #expect(first.lines == ["mine"])
    }

    @Test(
        "configure: sets a property that every thread then reads: lock-protected, or written only in configure:",
        arguments: [ConfigureStyle.lockProtected, .writtenOnlyInConfigure])
    func configurePublishes(style: ConfigureStyle) {
        let checks = OffThreadChecks()
        withWatchdog {
            for _ in 0..<stressRounds(50) {
                let component = DeskComponent()
                onThreads(4) { _ in
                    switch style {
                    case .lockProtected:
                        let parent = component.notes.parent()
                        checks.check(parent.child.withLock { $0 } === component.notes.child(), "child set")
                    case .writtenOnlyInConfigure:
                        let folder = component.notes.folder()
                        checks.check(folder.index === component.notes.index(), "index set")
                    }
                }
            }
        }
        checks.expectNone()
    }
}

enum ConfigureStyle: String, Sendable, Codable, CustomTestStringConvertible {
    case lockProtected, writtenOnlyInConfigure
    var testDescription: String { rawValue }
}

/// Not `Sendable`: mutable and unguarded.
final class Drafts {
    var lines: [String] = []
}

@MainActor
final class Lamp {
    var isOn = false
}

final class Pen {
    var paper: Paper?
}

final class Paper {
    weak var pen: Pen?
}

/// Not `Sendable`; each caller owns its own.
final class Note {
    var lines: [String] = []
}

/// `Sendable` with a property that `configure:` sets: the property is guarded by a lock.
final class Parent: Sendable {
    let child = LockedBox<Child?>(nil)
}

final class Child: Sendable {}

/// `Sendable` by promise: `index` is written only by its provider's `configure:`, before Dirk hands
/// the folder to any other thread, and the build happens-before every read through the provider.
final class Folder: @unchecked Sendable {
    var index: Index?
}

final class Index: Sendable {}

final class DeskComponent: Component, @unchecked Sendable {
    @MainActor var desk: DeskModule { module() }
    var notes: NoteModule { module() }
}

final class DeskModule: MainActorModule<DeskComponent> {
    func drafts() -> Drafts { single { Drafts() } }
    func lamp() -> Lamp { single { Lamp() } }
    func pen() -> Pen { single({ Pen() }, configure: { pen, c in pen.paper = c.desk.paper() }) }
    func paper() -> Paper { single({ _ in Paper() }, configure: { paper, c in paper.pen = c.desk.pen() }) }
}

final class NoteModule: Module<DeskComponent> {
    func note() -> Note { transient { Note() } }
    func parent() -> Parent {
        single({ Parent() }, configure: { parent, c in parent.child.withLock { $0 = c.notes.child() } })
    }
    func child() -> Child { single { Child() } }
    func folder() -> Folder {
        single({ Folder() }, configure: { folder, c in folder.index = c.notes.index() })
    }
    func index() -> Index { single { Index() } }
}
