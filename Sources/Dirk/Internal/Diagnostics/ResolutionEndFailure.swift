/// Why a build whose instance others could see failed, or was dropped: the error, and the step
/// whose `configure:` threw it (the build's own, or, for a dropped build, the one that caused the
/// drop).
@usableFromInline package struct BuildFailure {
    @usableFromInline package let error: any Error
    @usableFromInline package let step: Step
}

/// Why a resolution's outermost call cannot return its value: the resolution took another agent's
/// half-configured instance to break a cycle through `configure:`, and that build then failed
/// (`failure`), so the value may refer to its dropped instance. Thrown from the outermost call's
/// step, and turned into the provider's own error, or a stop, where the provider's strategy
/// rethrows errors.
///
/// An object, so that the answer of every step's `leave()`, nil on all but this rare path, is one
/// word.
@usableFromInline package final class ResolutionEndFailure: Error, @unchecked Sendable {
    // Unchecked: the failure's step names types by metatype, which are not `Sendable`; it is
    // never changed, and only read to name the provider in a message.
    @usableFromInline package let failure: BuildFailure

    @usableFromInline package init(failure: BuildFailure) { self.failure = failure }
}
