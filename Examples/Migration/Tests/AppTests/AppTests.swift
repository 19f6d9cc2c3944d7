import Accounts
import Dirk
import Foundation
import Networking
import Testing

@testable import App

@Suite("The migrated app")
struct AppTests {
    @Test("the home screen uses the app's, the session's and the networking feature's providers")
    func dashboardUsesEveryParent() {
        // The test keeps the component: a chain on a temporary would release it before the call.
        let home = HomeComponent.testing(user: "ada", answer: "no news")
        let dashboard = home.home.dashboard()
        #expect(dashboard.greeting == "Hello, ada")
        #expect(dashboard.headline == "no news")
        #expect(dashboard.processors == ["thumbnails", "index"], "the contributions, in order")
    }

    @Test("launching with -mockNetwork gives the canned network that networkSetup() registered")
    func launchArguments() {
        let networking = NetworkingComponent.live(arguments: ["App", "-mockNetwork"])
        #expect(networking.network.network().fetch("/news") == "canned /news")
        let live = NetworkingComponent.live(arguments: ["App"])
        #expect(live.network.network().fetch("/news") == "live /news")
    }

    @Test("each sign-in gets its own session, as a reset custom scope did")
    func sessionPerSignIn() {
        let app = AppComponent.live()
        let first = SessionComponent(userName: "ada").parent(app)
        let second = SessionComponent(userName: "grace").parent(app)
        #expect(first.session.session() === first.session.session())
        #expect(first.session.session() !== second.session.session())
        #expect(first.app.catalog.formatter() === second.app.catalog.formatter(), "the app's single")
    }

    @Test("a test replaces the shared avatar cache, a weak provider of a protocol, with a fake")
    func fakeAvatars() {
        let accounts = HomeComponent.testing().accounts()
            .overriding {
                $0.accounts.avatars()
            } with: {
                BlankAvatars()
            }
        #expect(accounts.accounts.viewModel().avatar() == "")
        let cache = accounts.accounts.avatars()
        #expect(accounts.accounts.avatars() === cache, "shared while the test holds it")
    }

    @Test("a test replaces an injected function with a @Sendable closure")
    func fakeOpenURL() throws {
        let networking = NetworkingComponent().overriding {
            $0.network.openURL()
        } with: {
            { @Sendable _ in false }
        }
        #expect(!networking.network.openURL()(try #require(URL(string: "https://example.com"))))
    }

    @Test("the accounts feature reads its host, the home screen, and loads its ledger asynchronously")
    func accountsFeature() async {
        let accounts = HomeComponent.testing(user: "ada", answer: "12345").accounts()
        #expect(accounts.accounts.viewModel().title == "ada")
        #expect(await accounts.accounts.ledger().balance == 5)
    }

    @Test("after reset(), a new mock needs a new component: a provider that was used cannot be overridden")
    func newComponentForANewMock() {
        let first = HomeComponent.testing(answer: "first")
        #expect(first.home.dashboard().headline == "first")
        first.reset()
        let second = HomeComponent.testing(answer: "second")
        #expect(second.home.dashboard().headline == "second")
    }

    @Test("a preview keeps its components, so its screens resolve for as long as it lives")
    func previewKeepsItsComponents() {
        #expect(HomePreview.dashboard().headline == "canned /news")
        #expect(HomePreview.dashboard().greeting == "Hello, preview")
    }
}

final class BlankAvatars: Avatars {
    func avatar(for user: String) -> String { "" }
}
