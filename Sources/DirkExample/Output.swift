/// Prints a section heading.
func section(_ title: String) {
    print("\n\(title)")
}

/// Prints one line: the strategy at work, what was called, and what it returned.
func show(_ strategy: String, _ call: String, _ results: Any...) {
    let columns = [(strategy, 14), (call, 47)].map { text, width in
        text + String(repeating: " ", count: max(1, width - text.count))
    }
    print("  " + columns.joined() + results.map { "\($0)" }.joined(separator: ", "))
}
