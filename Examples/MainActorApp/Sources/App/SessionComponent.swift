import Dirk

/// The signed-in user's scope: opened at sign-in below the app's component, shut down at sign-out.
nonisolated final class SessionComponent: Component, @unchecked Sendable {
    let user: UserSession

    init(user: UserSession) {
        self.user = user
        super.init()
    }

    var app: AppComponent { parent() }
}

extension SessionComponent {
    // In an extension, the accessor is main-actor, as the target's default says: no annotation.
    var account: SessionModule { module() }
}

/// The session's services, resolved by the screens on the main actor: a `MainActorModule`, which
/// needs no annotation, keeps any type, and runs its `close:` actions on the main actor. The
/// services themselves do their work off the main actor, as they declare.
final class SessionModule: MainActorModule<SessionComponent> {
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

    /// The screens the user saw: a main-actor service, which `shutdown()` flushes on the main actor.
    func tracker() -> ScreenTracker {
        single { c in
            ScreenTracker(api: c.app.services.api(), session: c.user)
        } close: { tracker in
            try await tracker.flush()
        }
    }
}
