/// A provider's identity: what gives it a cache of its own.
///
/// A strategy call identifies its provider from where it is written: the provider method's name
/// and the file, line and column of the call. With the module and the declared return type, that
/// tells every provider's instances apart, so two methods that return the same type never share
/// one. A helper that calls a strategy for several providers would give them all the helper's own
/// place, and one instance; so it takes each provider's identity, made at the provider, and passes
/// it on:
///
/// ```swift
/// extension Module {
///     func cachedLabel(_ make: () -> Label, id: ProviderID) -> Label { single(make, id: id) }
/// }
///
/// final class LabelModule: Module<LabelComponent> {
///     func title() -> Label { cachedLabel({ Label("title") }, id: ProviderID()) }
///     func subtitle() -> Label { cachedLabel({ Label("subtitle") }, id: ProviderID()) }
/// }
/// ```
///
/// See <doc:ProviderStrategies#Provider-identity>.
public struct ProviderID: Sendable {
    @usableFromInline let site: ProviderSite

    /// The identity of the provider that makes it: leave every argument to its default.
    ///
    /// - Parameters:
    ///   - file: The provider's file.
    ///   - line: The line of the call.
    ///   - column: The column of the call, which tells apart providers written on one line.
    ///   - function: The provider method's name.
    public init(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function
    ) { site = ProviderSite(file: file, line: line, column: column, function: function) }
}

extension ProviderSite {
    /// The site of `id`, or else the site at `file`, `line` and `column` in `function`: what a
    /// strategy's arguments say.
    @inlinable init(
        _ id: ProviderID?, _ file: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString
    ) { self = id?.site ?? ProviderSite(file: file, line: line, column: column, function: function) }
}
