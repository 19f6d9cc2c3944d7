import Dirk

/// The scope of one signed-in user: made at sign-in, dropped at sign-out.
final class SessionComponent: Component, @unchecked Sendable {
    /// The signed-in user. Immutable, so the component stays safe to share across threads.
    let userID: String

    init(userID: String) {
        self.userID = userID
        super.init()
    }

    var app: AppComponent { parent() }
    var account: AccountModule { module() }
}

final class AccountModule: Module<SessionComponent> {
    /// One profile per user id for as long as the session lasts, or until `reset()`.
    func profile(id: String) -> Profile {
        single(key: id) { c in Profile(id: id, client: c.app.network.client()) }
    }

    /// The signed-in user's own profile.
    func me() -> Profile { profile(id: component.userID) }
}

extension AppComponent {
    /// Starts a session; the caller owns it, and the application never refers to it.
    func signIn(userID: String) -> SessionComponent {
        SessionComponent(userID: userID).parent(self)
    }
}
