import Dirk

/// What a SwiftUI `#Preview { HomeView(model: previewHome()) }` builds: a graph of its own, over
/// canned data, signed in without a server. Each preview calls it and gets its own components.
///
/// The components live until the view model is built, which holds what it uses: a module does not
/// keep its component alive, so `HomeComponent().parent(session).screen.viewModel()`, a chain on a
/// temporary, would stop the program.
func previewHome(items: [Item] = PreviewAPI.items) -> HomeViewModel {
    let app = AppComponent().overriding {
        $0.services.api()
    } with: {
        PreviewAPI(items: items)
    }
    let user = UserSession(user: "preview", token: "preview")
    // A preview shuts nothing down, so its screen tracker is one without a close action.
    let session = SessionComponent(user: user).parent(app).overriding {
        $0.account.tracker()
    } with: {
        MainActor.assumeIsolated { ScreenTracker(api: PreviewAPI(items: items), session: user) }
    }
    let home = HomeComponent().parent(session)
    return home.screen.viewModel()
}

/// A server that answers every call with canned data. Its methods are main-actor, as the target's
/// default says, which the protocol's async requirements allow: a call from elsewhere hops over.
struct PreviewAPI: FeedAPI {
    static let items = [Item(id: 1, title: "Preview", body: "Canned, for the canvas.")]
    let items: [Item]

    func signIn(user: String, password: String) -> UserSession { UserSession(user: user, token: "preview") }
    func signOut(_ session: UserSession) {}
    func featureFlags() -> FeatureFlags { FeatureFlags(comments: true) }
    func feed(for session: UserSession) -> [Item] { items }
    func item(id: Int, for session: UserSession) throws -> Item {
        guard let item = items.first(where: { $0.id == id }) else { throw APIError.notFound(id: id) }
        return item
    }
    func comments(on itemID: Int, for session: UserSession) -> [Comment] { [] }
    func upload(readItems: [Int], for session: UserSession) {}
    func upload(screens: [String], for session: UserSession) {}
}
