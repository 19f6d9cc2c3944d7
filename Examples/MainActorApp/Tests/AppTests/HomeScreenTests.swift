import Dirk
import Testing

@testable import App

@Suite("The home screen")
struct HomeScreenTests {
    @Test("loading shows the feed that the server sends")
    func loadsTheFeed() async {
        let api = FakeAPI()
        let home = HomeComponent().parent(testSession(api: api, user: "ada"))
        let model = home.screen.viewModel()
        #expect(model.title == "ada's feed")
        #expect(model.state == .idle)
        await model.load()
        #expect(model.state == .loaded(api.items))
    }

    @Test("a server that fails shows its error")
    func showsTheError() async {
        let home = HomeComponent().parent(testSession(api: FakeAPI(failure: .unauthorized)))
        let model = home.screen.viewModel()
        await model.load()
        #expect(model.state == .failed("unauthorized"))
    }

    @Test("the screen's view model is one per screen, and each screen gets its own")
    func oneViewModelPerScreen() {
        let session = testSession(api: FakeAPI())
        let first = HomeComponent().parent(session)
        let second = HomeComponent().parent(session)
        #expect(first.screen.viewModel() === first.screen.viewModel())
        #expect(first.screen.viewModel() !== second.screen.viewModel())
    }

    @Test("a preview builds its own graph over canned data")
    func preview() async {
        let first = previewHome(items: [Item(id: 1, title: "One", body: "")])
        let second = previewHome()
        #expect(first !== second)
        await first.load()
        #expect(first.state == .loaded([Item(id: 1, title: "One", body: "")]))
    }
}
