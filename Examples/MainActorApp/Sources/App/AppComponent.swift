import Dirk

/// The app's component: created at launch, kept for the app's lifetime. A component says
/// `nonisolated` and `@unchecked Sendable`, always: see README.md.
nonisolated final class AppComponent: Component, @unchecked Sendable {
    var services: ServicesModule { module() }
}

/// The services that every screen and session shares, which code off the main actor resolves too (a
/// background refresh): a plain `Module`, so `nonisolated`.
nonisolated final class ServicesModule: Module<AppComponent> {
    /// Built as the protocol, so that a test or a preview can override it with a fake.
    func api() -> any FeedAPI { single { LiveFeedAPI(baseURL: "https://feed.example.com") as any FeedAPI } }
    func store() -> ItemStore { single { ItemStore() } }
    func auth() -> AuthService { single { c in AuthService(api: c.services.api()) } }

    /// Fetched from the server once, by the first caller, on the main actor or off it; a failure
    /// keeps nothing, so the next call asks again.
    func featureFlags() async throws -> FeatureFlags {
        try await single { c in try await c.services.api().featureFlags() }
    }
}
