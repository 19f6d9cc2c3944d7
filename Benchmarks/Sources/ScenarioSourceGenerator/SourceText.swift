/// The first line of every generated source.
let generatedHeader =
    "// Generated at build time by Benchmarks/Sources/ScenarioSourceGenerator. Do not edit."

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
