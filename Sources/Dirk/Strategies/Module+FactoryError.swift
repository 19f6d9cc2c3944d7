extension ModuleBase {
    /// The error that a provider's factory threw, as the type the factory declares; stops the
    /// program, naming the provider at `site`, if an override's factory threw another type.
    ///
    /// One call for every strategy, so that no provider carries the message's code. (Speed only.)
    @inlinable @inline(never) func factoryError<Failure: Error>(
        _ error: any Error, as type: Failure.Type, site: ProviderSite
    ) -> Failure {
        // The step as far as the message names it: the strategy and the return type are left out.
        Diagnostics.providerError(
            error, as: Failure.self, step: providerStep(.none, site: site, returning: Never.self),
            overrides: overrideLocations(ofProviderAt: site))
    }
}
