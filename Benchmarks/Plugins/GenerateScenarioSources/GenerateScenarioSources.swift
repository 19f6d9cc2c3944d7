import Foundation
import PackagePlugin

/// Generates, at build time, the sources of the scenarios that need hundreds of types and
/// providers (`cold1000`, `deep100`, `scale1000`), by running `ScenarioSourceGenerator`.
///
/// The files keep the names they would have in `Sources/DirkBenchmarkSuite/Scenarios/`, so the
/// providers' `#fileID` is the same as if they were written there by hand.
@main
struct GenerateScenarioSources: BuildToolPlugin {
    static let fileNames = [
        "Cold1000+Generated.swift",
        "Deep100+Generated.swift",
        "Scale1000+Generated.swift",
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let generator = try context.tool(named: "ScenarioSourceGenerator")
        let outputs = Self.fileNames.map { context.pluginWorkDirectoryURL.appending(path: $0) }
        return [
            .buildCommand(
                displayName: "Generating the sources of cold1000, deep100 and scale1000",
                executable: generator.url,
                arguments: outputs.map { $0.path(percentEncoded: false) },
                inputFiles: [],
                outputFiles: outputs
            )
        ]
    }
}
