import Dirk

// A scripted run of the app: what a user's taps would do, printed.
let app = AppComponent()
let api = app.services.api()

let user = try await app.services.auth().signIn(user: "ada", password: "secret")
let session = SessionComponent(user: user).parent(app)
print("signed in as \(user.user)")
let flags = try await app.services.featureFlags()
print("feature flags from the server: comments \(flags.comments ? "on" : "off")")

/// The screens, each with its component, shown and closed while the session is open.
func browse(_ session: SessionComponent, flags: FeatureFlags) async {
    let home = HomeComponent().parent(session)
    let feed = home.screen.viewModel()
    await feed.load()
    guard case .loaded(let items) = feed.state, let first = items.first else {
        print("home: \(feed.state)")
        return
    }
    print("home: \(feed.title), \(items.count) items: \(items.map(\.title).joined(separator: ", "))")

    let detail = DetailComponent(itemID: first.id).parent(session)
    let item = detail.screen.viewModel()
    await item.load()
    print("detail: \(item.item.map { "\($0.title), marked read" } ?? item.error ?? "")")
    guard flags.comments else { return }
    let comments = detail.screen.commentsViewModel()
    comments.appear()
    await comments.loading?.value
    print("detail: comments: \(comments.comments.map { "\($0.author): \($0.text)" }.joined(separator: "; "))")
}
await browse(session, flags: flags)

// What the system's background refresh would run, off the main actor: it reaches the app's
// services through their plain module, whose providers any thread may call.
let (refreshed, refreshedFlags) = try await Task.detached { [app, user] in
    let feed = FeedService(api: app.services.api(), store: app.services.store(), session: user)
    return (try await feed.loadFeed().count, try await app.services.featureFlags())
}.value
print("background refresh: \(refreshed) items, the same feature flags: \(refreshedFlags == flags)")

print("signing out: the session shuts down")
try await session.shutdown()  // runs the session's close actions: what was read and seen goes to the server
await app.services.auth().signOut(user)
if let live = api as? LiveFeedAPI {
    print("the session's close action sent the reading history: \(await live.readItems[user.user] ?? [])")
    let screens = await live.screensShown[user.user] ?? []
    print("the session's main-actor close action sent the screens: \(screens)")
}

// What a preview of the home screen shows: its own graph, over canned data.
let preview = previewHome()
await preview.load()
if case .loaded(let items) = preview.state {
    print("preview: \(preview.title), \(items.map(\.title).joined(separator: ", "))")
}
