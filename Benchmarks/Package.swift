// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DirkBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Dirk", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject.git", exact: "2.10.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", exact: "1.6.1"),
    ],
    targets: [
        // Times the scenarios, then builds and runs DirkBenchmarkAllocations to count their
        // allocations. It must not depend on that target: SwiftPM would then link the interposer's
        // dynamic library into this executable too, and every malloc of the timed loops would go
        // through it.
        .executableTarget(
            name: "DirkBenchmarks",
            dependencies: ["DirkBenchmarkSuite"]
        ),
        // Counts the allocations of each scenario's operation, with the malloc interposer linked in.
        .executableTarget(
            name: "DirkBenchmarkAllocations",
            dependencies: [
                "DirkBenchmarkSuite",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        // The heap bytes a live child component takes, against a hand-written object.
        .executableTarget(
            name: "DirkBenchmarkMemory",
            dependencies: [.product(name: "Dirk", package: "Dirk")]
        ),
        // The scenarios and the harness that both executables share.
        .target(
            name: "DirkBenchmarkSuite",
            dependencies: [
                .product(name: "Dirk", package: "Dirk"),
                .product(name: "Swinject", package: "Swinject"),
                "CrossModuleFixtures",
                "ProcessorAffinity",
            ],
            plugins: ["GenerateScenarioSources"]
        ),
        // Components, modules and hand-written code of `single_xmod`, declared outside the
        // module that calls them.
        .target(
            name: "CrossModuleFixtures",
            dependencies: [
                .product(name: "Dirk", package: "Dirk"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        // The processors the process may use, and pinning a thread to one (Linux), for the
        // parallel scenarios.
        .target(name: "ProcessorAffinity"),
        // Writes the sources of the scenarios that need hundreds of types and providers
        // (`cold1000`, `deep100`, `scale1000`) ...
        .executableTarget(name: "ScenarioSourceGenerator"),
        // ... into the build folder, when DirkBenchmarkSuite is built.
        .plugin(
            name: "GenerateScenarioSources",
            capability: .buildTool(),
            dependencies: ["ScenarioSourceGenerator"]
        ),
    ]
)
