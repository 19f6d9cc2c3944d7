import Dirk
import Testing

@testable import App

@Suite("The detail screen")
struct DetailScreenTests {
    @Test("loading shows the item and marks it read; signing out sends what was read")
    func loadsAndMarksRead() async throws {
        let api = FakeAPI()
        let session = testSession(api: api)
        let detail = DetailComponent(itemID: 7).parent(session)
        let model = detail.screen.viewModel()
        await model.load()
        #expect(model.item?.title == "Fake")
        #expect(await session.account.history().unsent == [7])
        try await session.shutdown()  // the history's close action, and the tracker's on the main actor
        #expect(await api.uploaded == [7])
        #expect(await api.screens == ["detail 7"])
    }

    @Test("an item the server does not have shows the error")
    func missingItem() async throws {
        // The session built a reading history, which has a close action: shut it down at the end.
        try await testSession(api: FakeAPI()).withShutdown { session in
            let detail = DetailComponent(itemID: 99).parent(session)
            let model = detail.screen.viewModel()
            await model.load()
            #expect(model.item == nil)
            #expect(model.error == "notFound(id: 99)")
        }
    }

    @Test("appearing starts loading the comments, once")
    func commentsLoadOnAppear() async {
        let detail = DetailComponent(itemID: 7).parent(testSession(api: FakeAPI()))
        let model = detail.screen.commentsViewModel()
        model.appear()
        let loading = model.loading
        model.appear()
        #expect(model.loading == loading)
        await model.loading?.value
        #expect(model.comments == [Comment(author: "test", text: "on 7")])
    }

    @Test("a fake comments service, in a module subclass, replaces the screen's")
    func fakeCommentsService() async {
        let detail = DetailComponent(itemID: 7).parent(testSession(api: FakeAPI()))
            .module { OfflineDetailScreenModule($0) }
        let model = detail.screen.commentsViewModel()
        model.appear()
        await model.loading?.value
        #expect(model.comments.isEmpty)
    }
}

/// The detail screen with a comments service whose server is unreachable.
final class OfflineDetailScreenModule: DetailScreenModule {
    override func comments() -> CommentsService {
        single { c in CommentsService(api: FakeAPI(failure: .unauthorized), session: c.session.user) }
    }
}
