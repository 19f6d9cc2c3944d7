/// What a host finds a build-once cell by: the module whose provider's cell it is, the provider's
/// key, and which of the provider's instances the cell holds.
@usableFromInline package struct CellKey: Hashable {
    /// Which of a provider's instances a cell holds.
    @usableFromInline package enum Instance: Hashable {
        /// The provider's one instance (a `single`'s, a `weak`'s), or, for a provider whose instances
        /// are each in a cell of their own, the record of its strategy.
        case shared
        /// The instance for one key of a `single(key:)` provider: the key's number in its table.
        case key(UInt64)
    }

    @usableFromInline package let owner: ObjectIdentifier
    @usableFromInline package let provider: ProviderKey
    /// The instance, in one word, so that a cached read compares plain words (speed only: stored as
    /// the enum, it cost a cached `single` read 15 instructions, callgrind, which would put it over
    /// its rail): zero for `.shared`, or a key's number. Only `init` and `instance` read or write it.
    @usableFromInline let packed: UInt64

    /// Which of the provider's instances the cell holds.
    @usableFromInline package var instance: Instance {
        packed == 0 ? .shared : .key(packed)
    }

    /// The number of a key's cell, which owns the key's step; zero for any other cell (a key's
    /// number is never zero).
    var keyNumber: UInt { if case .key(let number) = instance { UInt(number) } else { 0 } }

    /// Compares the owners and instances, which are plain words, first.
    @inlinable package static func == (lhs: CellKey, rhs: CellKey) -> Bool {
        lhs.owner == rhs.owner && lhs.packed == rhs.packed && lhs.provider == rhs.provider
    }

    @inlinable package init(owner: ObjectIdentifier, provider: ProviderKey, instance: Instance = .shared) {
        self.owner = owner
        self.provider = provider
        switch instance {
        case .shared: packed = 0
        case .key(let number): packed = number
        }
    }

    /// The key of the cell for the key numbered `number` of this cell's provider.
    func forKey(_ number: UInt64) -> Self { Self(owner: owner, provider: provider, instance: .key(number)) }

    /// One word mixed from the owner, the type and the position, which tell cells apart: hashed
    /// without a `Hasher`, since keys are made by Dirk, not by an adversary, and every cached read
    /// hashes one. (Speed only: the underscored requirement is `Hashable`'s own hook for it.)
    @inlinable package func _rawHashValue(seed: Int) -> Int {
        var bits =
            UInt64(UInt(bitPattern: owner)) ^ UInt64(UInt(bitPattern: ObjectIdentifier(provider.returnType)))
            &<< 1
        bits ^= provider.position &* 0x9E37_79B9_7F4A_7C15 ^ packed ^ UInt64(UInt(bitPattern: seed))
        bits = (bits ^ bits >> 29) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: bits ^ bits >> 32)
    }

    @inlinable package func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }

    /// The key of the one cell of a host that holds no other (`StandaloneCell`), whose address is
    /// `owner`.
    package static func standalone(_ owner: ObjectIdentifier) -> CellKey {
        let site = ProviderSite(file: "", line: 0, column: 0, function: "")
        return CellKey(owner: owner, provider: ProviderKey(site: site, type: Never.self))
    }
}
