import Hummingbird
import ServiceLifecycle

// The application owns its component: created here from the environment, held by the server while
// it runs, and shut down, which closes the database, once the server has stopped.
let app = AppComponent(configuration: ServerConfiguration(environment: Environment()))
let server = buildApplication(app: app)
// On SIGTERM or SIGINT the group shuts the server down gracefully: it stops accepting connections,
// answers the requests under way, and then `run()` returns.
let services = ServiceGroup(
    configuration: .init(
        services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: server.logger))
printNow("TodoServer keeps its todos in \(app.configuration.database)")
do {
    try await services.run()
} catch {
    // A server that failed closes the database too, then reports why it failed.
    try? await app.shutdown()
    throw error
}
// No request is under way any more, so none can find the database closed.
try await app.shutdown()
printNow("TodoServer stopped and closed its database")
