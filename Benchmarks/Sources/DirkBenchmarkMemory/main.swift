import Dirk
import Foundation

// The memory a live child component takes: it makes CHILDREN children of one application component,
// each holding one cached `single`, keeps them all alive, and prints how much the process's resident
// memory grew per child (Linux's /proc/self/statm), against a hand-written screen object that keeps
// its one instance in a `lazy var`. The bar is 800 bytes.
//
//     swift run -c release --package-path Benchmarks DirkBenchmarkMemory [CHILDREN]

final class Store: Sendable {}
final class Session: Sendable {}

final class AppComponent: Component, @unchecked Sendable {
    var data: DataModule { module() }
}

final class DataModule: Module<AppComponent> {
    func store() -> Store { single { Store() } }
}

final class ScreenComponent: Component, @unchecked Sendable {
    var app: AppComponent { parent() }
    var screen: ScreenModule { module() }
}

final class ScreenModule: Module<ScreenComponent> {
    func session() -> Session { single { Session() } }
}

/// What a screen would write by hand: its parent, and its one instance made on first use.
final class HandwrittenScreen {
    let app: AnyObject
    lazy var session = Session()

    init(app: AnyObject) {
        self.app = app
    }
}

/// The process's resident memory now, in bytes; zero where /proc is missing.
func heapInUse() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Every object measured, kept alive to the end, so that no measurement reuses another's memory.
nonisolated(unsafe) var kept: [[AnyObject]] = []

/// The resident bytes each of `count` live objects that `make` returns takes, on average.
func bytesPerObject(_ count: Int, _ make: () -> AnyObject) -> Int {
    var objects: [AnyObject] = []
    objects.reserveCapacity(count)
    let before = heapInUse()
    for _ in 0..<count { objects.append(make()) }
    let after = heapInUse()
    kept.append(objects)
    return (after - before) / count
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 400_000
let app = AppComponent()
_ = app.data.store()
let dirk = bytesPerObject(count) {
    let screen = ScreenComponent().parent(app)
    _ = screen.screen.session()
    return screen
}
let handwritten = bytesPerObject(count) {
    let screen = HandwrittenScreen(app: app)
    _ = screen.session
    return screen
}
print(
    "memory: a live child component holding one cached single: \(dirk) bytes",
    "(hand-written: \(handwritten) bytes), over \(count) children")
