// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Dirk",
    // The floor of Swift concurrency, which Dirk's async providers use; nothing in Dirk needs a
    // later system.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "Dirk", targets: ["Dirk"])
    ],
    dependencies: [],
    targets: [
        .target(name: "Dirk", dependencies: ["CDirk"]),
        // Atomics, a lock word and a thread-local pointer, which Swift cannot declare without the
        // `Synchronization` module; see its header.
        .target(name: "CDirk"),
        .executableTarget(name: "DirkExample", dependencies: ["Dirk"]),
        .target(name: "DirkTestSupport", path: "Tests/DirkTestSupport"),
        .testTarget(name: "DirkTests", dependencies: ["Dirk", "DirkTestSupport"]),
        // The machinery under Sources/Dirk/Internal, through its `package` test hooks.
        .testTarget(name: "DirkInternalTests", dependencies: ["Dirk", "DirkTestSupport"]),

        .testTarget(
            name: "DirkReliabilityTests", dependencies: ["Dirk", "DirkTestSupport", "DirkModelTesting"],
            exclude: ["Generated/generate-graph-module.py"]),
        // The model-based test: random programs of components, providers and concurrent operations,
        // run against Dirk and checked against a reference model. DirkReliabilityTests runs a fixed
        // budget of seeds; `swift run -c release DirkModelTest --seeds 10000` runs a long one.
        .target(name: "DirkModelTesting", dependencies: ["Dirk"], path: "Tests/DirkModelTesting"),
        .executableTarget(
            name: "DirkModelTest", dependencies: ["DirkModelTesting"], path: "Tests/DirkModelTest"),
    ]
)
