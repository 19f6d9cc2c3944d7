import Foundation

extension Checks {
    /// The excerpts of the example in the guide Using Dirk in a server match its sources, and none of
    /// their lines is wider than 100 columns, so that none overflows on the documentation site.
    ///
    /// Each ```swift (or ```text) block of the guide whose first line is `// Examples/Server/...` is
    /// an excerpt of that file: its other lines must appear there, in the same order, ignoring
    /// indentation. Blank lines and lines that are only `// …` mark omissions. (.ci/check-docs
    /// compiles the ```swift blocks too, against the stand-ins the guide declares.)
    func guideExcerpts() {
        say("checking the excerpts of the example in the guide Using Dirk in a server")
        let guide = "Docs/Dirk.docc/UsingDirkInAServer.md"
        let width = 100
        guard let text = try? String(contentsOfFile: "\(settings.repository)/\(guide)", encoding: .utf8)
        else {
            harness.fail("cannot read \(guide)")
        }
        var problems: [String] = []
        var checked = 0
        for block in fencedBlocks(text) where block.first?.hasPrefix("// Examples/Server/") == true {
            for line in block where line.unicodeScalars.count > width {
                problems.append(
                    "\(guide): an excerpt has a line wider than \(width) columns: \(trimmed(line))")
            }
            let path = trimmed(block[0].dropFirst("// ".count))
            guard let source = try? String(contentsOfFile: "\(settings.repository)/\(path)", encoding: .utf8)
            else {
                problems.append("\(guide): an excerpt names \(path), which does not exist")
                continue
            }
            let sourceLines = source.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
            var at = 0
            for line in block.dropFirst() {
                let wanted = trimmed(line)
                if wanted.isEmpty || wanted == "// …" { continue }
                if let found = sourceLines[at...].firstIndex(of: wanted) {
                    at = found + 1
                } else {
                    problems.append(
                        "\(guide): the excerpt of \(path) has a line that is not in that file "
                            + "(or not in this order): \(wanted)")
                }
            }
            checked += 1
        }
        if !problems.isEmpty { harness.fail(problems.joined(separator: "\n")) }
        if checked == 0 { harness.fail("\(guide) has no excerpt to check") }
        say("\(checked) excerpt(s) match the example's sources")
    }

    /// The lines of each block of `text` that opens with a line ```swift or ```text and closes with
    /// a line ```, without its trailing empty lines.
    private func fencedBlocks(_ text: String) -> [[String]] {
        var blocks: [[String]] = []
        var open: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var lines = open {
                if line == "```" {
                    while lines.last == "" { lines.removeLast() }
                    blocks.append(lines)
                    open = nil
                } else {
                    lines.append(line)
                    open = lines
                }
            } else if line == "```swift" || line == "```text" {
                open = []
            }
        }
        return blocks
    }

    private func trimmed(_ line: some StringProtocol) -> String {
        line.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
