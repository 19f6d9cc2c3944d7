import Hummingbird

// The application owns its component: created here from the environment, held by the routes, and
// released when the server stops (SIGINT or SIGTERM).
let app = AppComponent(configuration: ServerConfiguration(environment: Environment()))
try await buildApplication(app: app).runService()
