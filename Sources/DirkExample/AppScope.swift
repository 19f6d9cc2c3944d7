import Dirk

/// The application's scope: lives as long as the program and holds what all users share.
final class AppComponent: Component, @unchecked Sendable {
    var storage: StorageModule { module() }
    var network: NetworkModule { module() }
    var analytics: AnalyticsModule { module() }
}

final class StorageModule: Module<AppComponent> {
    /// One store for the whole application.
    func store() -> Store { single { Store() } }

    /// Shared while some screen holds it; rebuilt after the last one lets go.
    func images() -> ImageCache { weak { ImageCache() } }
}

/// Not final: offline mode replaces it with `StubNetworkModule`.
class NetworkModule: Module<AppComponent> {
    func client() -> any HTTPClient { single { LiveHTTPClient() } }
}

final class AnalyticsModule: Module<AppComponent> {
    func tracker() -> Tracker { single { c in Tracker(client: c.network.client()) } }
}
