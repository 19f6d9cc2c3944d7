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
            name: "DirkReliabilityTests", dependencies: ["Dirk", "DirkTestSupport"],
            exclude: ["Generated/generate-graph-module.py"]),
    ]
)
