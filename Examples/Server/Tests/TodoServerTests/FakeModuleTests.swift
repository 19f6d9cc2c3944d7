import HummingbirdTesting
import Testing

@testable import TodoServer

@Suite struct FakeModuleTests {
    @Test("POST /todos mails the user through the mailer of the module a test registers")
    func mailsThroughFakeModule() async throws {
        let app = AppComponent(configuration: .inMemory())
            .module(MailModule.self) { RecordingMailModule($0) }
        let mailer = try #require(app.mail.mailer() as? RecordingMailer)
        try await testRoutes(of: app) { client in
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": " "}"#)  // refused
        }
        #expect(mailer.sent == [Mail(to: "ada", subject: "New todo: milk")])
    }
}
