import Dirk
import DirkTestSupport
import Testing

@Suite("Async and main-actor handles")
struct AsyncHandleTests {
    @Test("an AsyncLazy resolves an async provider once, for every task that reads it")
    func asyncLazyResolvesOnce() async throws {
        let component = DatabaseComponent()
        let readers = 50
        // The first read's resolution lets the other readers start, and ends only once they all
        // have: every other read begins while it is under way. It counts the handle's own
        // resolutions: the single it returns would hide a second one.
        let (started, reading, allReading, resolutions) = (Latch(), Counter(), Latch(), Counter())
        let handle = component.lazy { c in
            resolutions.increment()
            started.open()
            await allReading.wait()
            return await c.storage.database()
        }
        #expect(component.opened.count == 0)
        let ids = await withAsyncWatchdog {
            await withTaskGroup(of: ObjectIdentifier.self) { group in
                group.addTask { ObjectIdentifier(await handle.value) }
                for _ in 1..<readers {
                    group.addTask {
                        await started.wait()
                        if reading.increment() == readers - 1 { allReading.open() }
                        return ObjectIdentifier(await handle.value)
                    }
                }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
        }
        #expect(ids?.count == 1)
        #expect(resolutions.count == 1, "one resolution for every reader")
        #expect(component.opened.count == 1)
    }

    @Test(
        "an AsyncLazy whose resolution throws gives the error to its readers and tries again on the next read"
    )
    func asyncLazyRethrows() async throws {
        let component = DatabaseComponent()
        component.failures.increment()
        let handle = component.lazy { try await $0.storage.flakyDatabase() }
        await #expect(throws: Flaky.self) { try await handle.value }
        let first = try await handle.value
        #expect(try await handle.value === first)
    }

    @Test("an AsyncProvider resolves anew on every call, with its provider's strategy")
    func asyncProviderEachCall() async {
        let component = DatabaseComponent()
        let connections = component.provider { await $0.storage.connection() }
        let first = await connections()
        let second = await connections()
        #expect(first !== second)
        #expect(first.database === second.database)
    }

    @Test("main-actor handles resolve on the main actor and can be held by objects of any isolation")
    @MainActor
    func mainActorHandles() {
        let component = ScreenComponent()
        let screens = ScreenHolder(
            current: component.mainActorLazy { $0.screens.coordinator() },
            fresh: component.mainActorProvider { $0.screens.viewModel() })
        #expect(screens.current.value === component.screens.coordinator())
        #expect(screens.fresh() !== screens.fresh())
    }

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "an async or main-actor handle read after its component was released stops with a message",
        arguments: ReleasedHandle.allCases)
    func handleAfterReleaseTraps(handle: ReleasedHandle) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [handle] in
            armExitTestWatchdog()
            await handle.readAfterRelease()
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: \(handle.article) `\(handle.typeName)` made at DirkTests/AsyncHandleTests.swift:"),
            "\(handle): \(message)")
        #expect(message.contains("was read after its component `\(handle.componentName)` was released"))
        #expect(message.contains("keep the component for as long as its handles are read"))
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/AsyncHandleTests.swift:"), "\(handle): \(trap)")
    }
    #endif
}

/// The async and main-actor handles, each read after its component is gone.
enum ReleasedHandle: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case asyncLazy, asyncProvider, mainActorLazy, mainActorProvider

    var testDescription: String { rawValue }

    var typeName: String {
        switch self {
        case .asyncLazy: "AsyncLazy<Database, Never>"
        case .asyncProvider: "AsyncProvider<Database, Never>"
        case .mainActorLazy: "MainActorLazy<ScreenViewModel>"
        case .mainActorProvider: "MainActorProvider<ScreenViewModel>"
        }
    }

    /// The article the message puts before the handle's type.
    var article: String {
        switch self {
        case .asyncLazy, .asyncProvider: "an"
        case .mainActorLazy, .mainActorProvider: "a"
        }
    }

    var componentName: String {
        switch self {
        case .asyncLazy, .asyncProvider: "DatabaseComponent"
        case .mainActorLazy, .mainActorProvider: "ScreenComponent"
        }
    }

    /// Makes the handle, releases its component, then reads the handle; it never returns.
    func readAfterRelease() async {
        switch self {
        case .asyncLazy:
            var component: DatabaseComponent? = DatabaseComponent()
            let handle = component!.lazy { await $0.storage.database() }
            component = nil
            _ = await handle.value
        case .asyncProvider:
            var component: DatabaseComponent? = DatabaseComponent()
            let handle = component!.provider { await $0.storage.database() }
            component = nil
            _ = await handle()
        case .mainActorLazy:
            var component: ScreenComponent? = ScreenComponent()
            let handle = component!.mainActorLazy { $0.screens.coordinator() }
            component = nil
            await MainActor.run { _ = handle.value }
        case .mainActorProvider:
            var component: ScreenComponent? = ScreenComponent()
            let handle = component!.mainActorProvider { $0.screens.viewModel() }
            component = nil
            await MainActor.run { _ = handle() }
        }
    }
}

/// Not isolated to the main actor, but holds main-actor handles.
final class ScreenHolder: Sendable {
    let current: MainActorLazy<ScreenViewModel>
    let fresh: MainActorProvider<ScreenViewModel>

    init(current: MainActorLazy<ScreenViewModel>, fresh: MainActorProvider<ScreenViewModel>) {
        self.current = current
        self.fresh = fresh
    }
}
