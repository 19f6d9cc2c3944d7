/// Where a provider calls its strategy, as the strategy's default arguments capture it: the file,
/// line and column of the call and the provider method's name (`store()`).
///
/// It names the provider in messages and resolution paths, and with the declared return type it makes
/// the provider's `ProviderKey`, which tells the provider's cell from its module's other ones.
@usableFromInline package struct ProviderSite: Sendable {
    @usableFromInline package let file: StaticString
    @usableFromInline package let line: UInt
    @usableFromInline package let column: UInt
    @usableFromInline package let function: StaticString

    @usableFromInline package init(file: StaticString, line: UInt, column: UInt, function: StaticString) {
        self.file = file
        self.line = line
        self.column = column
        self.function = function
    }

    /// The file and line as a message shows them: `App/DataModule.swift:12`.
    package var location: String { "\(file):\(line)" }
}

extension ProviderKey {
    /// The key of the provider at `site` returning `type`.
    @inlinable package init(site: ProviderSite, type: Any.Type) {
        self.init(file: site.file, line: site.line, column: site.column, function: site.function, type: type)
    }
}
