/// The first line of every generated source.
let generatedHeader =
    "// Generated at build time by Benchmarks/Sources/ScenarioSourceGenerator. Do not edit."

/// The lines every generated source begins with: its header, its imports, and the doc comment
/// `doc` of its first declaration.
func sourceHeader(describing doc: String) -> [String] {
    [generatedHeader, "", "import Dirk", "import Swinject", "", doc]
}

/// The lines of a component's `resolveAll()`, which calls `services.\(accessor(i))()` for each of
/// `count` services and sums their identifiers, up to the brace that closes the function.
func resolveAllThroughServices(count: Int, accessor: (Int) -> String) -> [String] {
    [
        "        func resolveAll() -> UInt {", "            let services = services",
        "            var sink: UInt = 0",
    ]
        + (0..<count).map { i in "            sink &+= bits(of: services.\(accessor(i))())" }
        + ["            return sink", "        }"]
}

/// `value` in decimal, with leading zeros up to `width` digits: `zeroPadded(7, width: 4)` is
/// `"0007"`.
func zeroPadded(_ value: Int, width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `value` in decimal with a comma between thousands: `grouped(1000)` is `"1,000"`.
func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return text
}
