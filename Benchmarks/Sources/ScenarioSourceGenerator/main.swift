import Foundation

/// Writes the sources of the scenarios that need hundreds of types and providers, for the
/// `GenerateScenarioSources` build-tool plugin:
///
///     ScenarioSourceGenerator OUTPUT...
///
/// The name of each output file says which source goes in it.
let sources: [String: () -> String] = [
    "Cold1000+Generated.swift": Cold1000Source.text,
    "Deep100+Generated.swift": Deep100Source.text,
    "Scale1000+Generated.swift": Scale1000Source.text,
]

let outputs = CommandLine.arguments.dropFirst()
if outputs.isEmpty {
    fail("usage: ScenarioSourceGenerator OUTPUT...")
}
for output in outputs {
    let url = URL(fileURLWithPath: output)
    guard let text = sources[url.lastPathComponent] else {
        fail(
            "ScenarioSourceGenerator: no source is named \(url.lastPathComponent); the names are \(sources.keys.sorted())"
        )
    }
    // SwiftPM can run the generator again when nothing changed (it links the plugin's tool again
    // on the build after the first); a file left as it was keeps its date, so DirkBenchmarkSuite
    // is not compiled again.
    let data = Data(text().utf8)
    if (try? Data(contentsOf: url)) == data { continue }
    do {
        try data.write(to: url, options: .atomic)
    } catch {
        fail("ScenarioSourceGenerator: cannot write \(output): \(error)")
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}
