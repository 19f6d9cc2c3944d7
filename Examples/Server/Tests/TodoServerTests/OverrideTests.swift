import HummingbirdTesting
import Testing

@testable import TodoServer

@Suite struct OverrideTests {
    @Test("POST /todos mails the user through a mailer the test overrides, with no module subclass")
    func mailsThroughOverride() async throws {
        let mailer = RecordingMailer()
        let app = AppComponent(configuration: .inMemory()).overriding {
            $0.mail.mailer()
        } with: {
            mailer
        }
        #expect(app.mail.mailer() as? RecordingMailer === mailer)
        try await testRoutes(of: app) { client in
            _ = try await client.send(.post, "/todos", as: "ada", json: #"{"title": "milk"}"#)
            _ = try await client.send(.post, "/todos", as: "bob", json: #"{"title": "bread"}"#)
        }
        #expect(mailer.sent.count == 2)
        #expect(Set(mailer.sent.map(\.to)) == ["ada", "bob"])
    }

    @Test("an override belongs to its component: a component built without it mails through the console")
    func overrideStaysWithItsComponent() async throws {
        let overridden = AppComponent().overriding {
            $0.mail.mailer()
        } with: {
            RecordingMailer()
        }
        try await overridden.withShutdown { overridden in
            #expect(overridden.mail.mailer() is RecordingMailer)
        }
        try await AppComponent().withShutdown { plain in
            #expect(plain.mail.mailer() is ConsoleMailer)
        }
    }
}
