import Foundation

extension Checks {
    /// The excerpts of the example in the guide Using Dirk in a server match its sources, and none of
    /// their lines is wider than 100 columns, so that none overflows on the documentation site.
    ///
    /// Each ```swift block of the guide whose first line is `// Examples/Server/...` is an excerpt of
    /// that file: its other lines must appear there, in the same order, ignoring indentation. Blank
    /// lines and lines that are only `// …` mark omissions. .ci/check-docs compiles these blocks too,
    /// against the stand-ins the guide declares, except those marked with a line
    /// `<!-- excerpt: PATH -->` right before the fence, which cannot compile on their own; this check
    /// treats both kinds alike. An excerpt fenced as ```text, which DocC would not highlight, is a
    /// problem.
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
        var marked = 0
        for block in fencedBlocks(text) where block.lines.first?.hasPrefix("// Examples/Server/") == true {
            guard block.language == "swift" else {
                problems.append(
                    "\(guide):\(block.line): an excerpt is fenced as ```\(block.language); fence it as "
                        + "```swift, after a line <!-- excerpt: PATH --> if it cannot compile on its own")
                continue
            }
            for line in block.lines where line.unicodeScalars.count > width {
                problems.append(
                    "\(guide): an excerpt has a line wider than \(width) columns: \(trimmed(line))")
            }
            let path = trimmed(block.lines[0].dropFirst("// ".count))
            guard let source = try? String(contentsOfFile: "\(settings.repository)/\(path)", encoding: .utf8)
            else {
                problems.append("\(guide): an excerpt names \(path), which does not exist")
                continue
            }
            let sourceLines = source.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
            var at = 0
            for line in block.lines.dropFirst() {
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
            if block.isMarkedExcerpt { marked += 1 }
        }
        if !problems.isEmpty { harness.fail(problems.joined(separator: "\n")) }
        if checked == 0 { harness.fail("\(guide) has no excerpt to check") }
        say("\(checked) excerpt(s) match the example's sources, \(marked) of them marked as excerpts")
    }

    /// A fenced block of the guide.
    private struct FencedBlock {
        /// The fence's language, such as `swift` or `text`.
        let language: String
        /// The line number of the opening fence.
        let line: Int
        /// Whether the line before the fence marks the block as an excerpt that .ci/check-docs does not
        /// compile.
        let isMarkedExcerpt: Bool
        /// The lines between the fences, without the trailing empty ones.
        var lines: [String] = []
    }

    /// The blocks of `text` that open with a line ```swift or ```text and close with a line ```.
    private func fencedBlocks(_ text: String) -> [FencedBlock] {
        var blocks: [FencedBlock] = []
        var open: FencedBlock?
        var previous = ""
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if var block = open {
                if line == "```" {
                    while block.lines.last == "" { block.lines.removeLast() }
                    blocks.append(block)
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if line == "```swift" || line == "```text" {
                open = FencedBlock(
                    language: String(line.dropFirst(3)), line: index + 1,
                    isMarkedExcerpt: previous.hasPrefix("<!-- excerpt: "))
            }
            previous = line
        }
        return blocks
    }

    private func trimmed(_ line: some StringProtocol) -> String {
        line.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
