/// The random numbers of Python's `random.Random(seed)`, a 32-bit Mersenne Twister (MT19937), for
/// a seed below 2³²: `cold1000`'s dependency graph was first drawn with it, and drawing it again
/// the same way keeps the scenario measuring the same graph.
struct PythonRandom {
    private var state: [UInt32]
    private var index: Int

    private static let size = 624
    private static let shift = 397

    /// The generator of `random.Random(seed)`.
    init(seed: UInt32) {
        let n = Self.size
        state = [UInt32](repeating: 0, count: n)
        state[0] = 19_650_218
        for i in 1..<n {
            state[i] = 1_812_433_253 &* (state[i - 1] ^ (state[i - 1] >> 30)) &+ UInt32(i)
        }
        // Python seeds from the seed's 32-bit words (init_by_array); a seed below 2³² is one word.
        var i = 1
        for _ in 0..<n {
            state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) &* 1_664_525)) &+ seed
            i += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
        }
        for _ in 0..<(n - 1) {
            state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) &* 1_566_083_941)) &- UInt32(i)
            i += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
        }
        state[0] = 0x8000_0000
        index = n
    }

    /// The next 32 random bits (`genrand_uint32`).
    mutating func next() -> UInt32 {
        let n = Self.size
        if index >= n {
            for k in 0..<n {
                let y = (state[k] & 0x8000_0000) | (state[(k + 1) % n] & 0x7fff_ffff)
                state[k] = state[(k + Self.shift) % n] ^ (y >> 1) ^ (y & 1 == 0 ? 0 : 0x9908_b0df)
            }
            index = 0
        }
        var y = state[index]
        index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c_5680
        y ^= (y << 15) & 0xefc6_0000
        y ^= y >> 18
        return y
    }

    /// A number in `0..<bound`, as `randrange(bound)` draws it: `bound`'s bit length of random
    /// bits, drawn again until they are below `bound`. `bound` is at least 1 and below 2³².
    mutating func below(_ bound: Int) -> Int {
        let bitCount = Int.bitWidth - bound.leadingZeroBitCount
        while true {
            let value = Int(next() >> (32 - bitCount))
            if value < bound { return value }
        }
    }
}
