import Dirk

/// Offline mode: the network module with its client replaced by one that reads the store.
///
/// Register it in place of the module it replaces:
/// `AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }`.
final class StubNetworkModule: NetworkModule {
    override func client() -> any HTTPClient {
        single { c in OfflineHTTPClient(store: c.storage.store()) }
    }
}
