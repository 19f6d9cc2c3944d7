import Dirk
import Networking

/// What a SwiftUI preview of the home screen builds: its own components, with the fakes it wants,
/// kept for as long as the preview lives. A module or a handle refers to its component without
/// keeping it alive, so the preview keeps the component itself (a `static let`, or the preview
/// view's `@State`).
enum HomePreview {
    static let networking = NetworkingComponent.live(arguments: ["-mockNetwork"])
    static let session = SessionComponent(userName: "preview").parent(AppComponent.live())
    static let home = HomeComponent().parent(session).parent(networking)

    static func dashboard() -> Dashboard { home.home.dashboard() }
}
