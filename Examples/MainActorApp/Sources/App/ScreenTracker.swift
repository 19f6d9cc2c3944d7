import Observation

/// The screens the user saw during a session, which the session's shutdown sends to the server: a
/// main-actor service, since the screens call it as they appear, and one with a teardown.
///
/// It says nothing about isolation: like the view models, it is main-actor by the target's default,
/// and not `Sendable`. Its provider is in a `MainActorModule`, whose `close:` runs on the main actor.
@Observable
final class ScreenTracker {
    private let api: any FeedAPI
    private let session: UserSession
    private(set) var shown: [String] = []

    init(api: any FeedAPI, session: UserSession) {
        self.api = api
        self.session = session
    }

    /// Records that `screen` appeared.
    func appeared(_ screen: String) {
        shown.append(screen)
    }

    /// Sends what was recorded since the last flush.
    func flush() async throws {
        guard !shown.isEmpty else { return }
        try await api.upload(screens: shown, for: session)
        shown = []
    }
}
