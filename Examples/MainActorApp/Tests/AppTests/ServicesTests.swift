import Dirk
import Testing

@testable import App

@Suite("The app's services")
struct ServicesTests {
    @Test("the feature flags come from the server once, for callers on the main actor and off it")
    func featureFlagsOnce() async throws {
        let api = FakeAPI(flags: FeatureFlags(comments: false))
        let app = testApp(api: api)
        #expect(try await app.services.featureFlags() == FeatureFlags(comments: false))
        let offMainActor = try await Task.detached { try await app.services.featureFlags() }.value
        #expect(offMainActor == FeatureFlags(comments: false))
        #expect(await api.flagRequests == 1)
    }

    @Test("a failed fetch of the feature flags keeps nothing: the next call asks the server again")
    func featureFlagsAfterAFailure() async throws {
        let api = FakeAPI(failure: .unauthorized)
        let app = testApp(api: api)
        await #expect(throws: APIError.unauthorized) { try await app.services.featureFlags() }
        await api.fail(with: nil)
        #expect(try await app.services.featureFlags() == FeatureFlags(comments: true))
        #expect(await api.flagRequests == 2)
    }
}
