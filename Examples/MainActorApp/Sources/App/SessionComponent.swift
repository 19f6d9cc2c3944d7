import Core
import Dirk

/// The signed-in user's scope: opened at sign-in below the app's component, shut down at sign-out.
nonisolated final class SessionComponent: Component, @unchecked Sendable {
    let user: UserSession

    init(user: UserSession) {
        self.user = user
        super.init()
    }

    var app: AppComponent { parent() }
    var account: SessionModule { module() }
}

nonisolated final class SessionModule: Module<SessionComponent> {
    func feed() -> FeedService {
        single { c in FeedService(api: c.app.services.api(), store: c.app.services.store(), session: c.user) }
    }

    /// What the user read; `shutdown()` sends it to the server, before the session is gone.
    func history() -> ReadingHistory {
        single { c in
            ReadingHistory(api: c.app.services.api(), session: c.user)
        } close: { history in
            try await history.flush()
        }
    }
}
