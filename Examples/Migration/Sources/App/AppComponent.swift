import Dirk
import Foundation

/// A step that every new article goes through: Factory's demo listed such factories by key path, as
/// tags. Dirk collects them as contributions.
public protocol Processor: Sendable {
    var name: String { get }
}

struct Thumbnailer: Processor {
    let name = "thumbnails"
}

struct Indexer: Processor {
    let name = "index"
}

/// The app's component: Factory's `Container.shared`, which the app creates once and keeps.
final class AppComponent: Component, @unchecked Sendable {
    var catalog: CatalogModule { module() }

    /// The component as the app launches it, with what Factory's `autoRegister()` registered:
    /// registrations happen here, once, before anything resolves.
    static func live() -> AppComponent {
        AppComponent()
            .contribute((any Processor).self, key: "thumbnails") { _ in Thumbnailer() }
            .contribute((any Processor).self, key: "index") { _ in Indexer() }
    }
}

final class CatalogModule: Module<AppComponent> {
    /// One per app component: Factory's `.singleton`, which was one per process.
    func formatter() -> NumberFormatterBox { single { NumberFormatterBox() } }

    /// Every processor contributed, in the order they were added.
    func processors() -> [any Processor] {
        transient { c in c.resolveContributions(of: (any Processor).self) }
    }
}

/// Formats amounts; shared by every caller, so `Sendable`.
final class NumberFormatterBox: Sendable {
    func format(_ amount: Int) -> String { "$\(amount)" }
}
