/// What a `StepStack` holds: a step that falls into one of the stack's buckets (steps that are the
/// same always share one), and tells whether it is the same step as another.
@usableFromInline package protocol StackedStep {
    var bucket: Int { get }
    func isSame(as other: Self) -> Bool
}

/// The stack of an agent's steps, a thread's or a task's, which finds a step already on it by looking
/// only at the steps of its bucket, so that a long chain of steps that each look for themselves costs
/// linear time.
///
/// **Why it is safe.** One agent owns a stack: a thread's context touches it from its thread only,
/// and a task's agent under its lock. The first
/// `depth` steps of `steps` are initialized and the rest are not; `belowInBucket[i]` is the index
/// of the step below step `i` in its bucket, or -1, and `bucketTops[b]` the index of bucket `b`'s
/// topmost step, or -1; every method keeps it so. A class, so that nothing copies the buffers'
/// owner: its `deinit` frees them, once. Debug builds assert every index against `depth` and every
/// bucket link against the stack, as swift-collections' `Deque` handle asserts its pointer accesses.
@usableFromInline final class StepStack<Element: StackedStep> {
    // One agent at a time reaches the stack (see above), so a run-time exclusivity check, a call into
    // the runtime on every push and pop, could never fail: the variables go without one.
    @usableFromInline @exclusivity(unchecked) var steps: UnsafeMutablePointer<Element>
    @usableFromInline @exclusivity(unchecked) var depth = 0
    @usableFromInline @exclusivity(unchecked) var capacity: Int
    @usableFromInline @exclusivity(unchecked) var belowInBucket: UnsafeMutablePointer<Int32>
    @usableFromInline let bucketTops: UnsafeMutablePointer<Int32>
    /// The number of buckets less one: a power of two less one, which masks a step's bucket.
    @usableFromInline let bucketMask: Int

    /// An empty stack of `buckets` buckets, a power of two of at most 1,024: a thread's has all of
    /// them, so that a chain of a hundred steps shares few buckets, for 4 KB per thread; a task's, few.
    init(buckets: Int) {
        assert(buckets.nonzeroBitCount == 1 && buckets <= 1_024, "Dirk internal error: \(buckets) buckets")
        capacity = buckets >= 1_024 ? 32 : 8
        bucketMask = buckets - 1
        steps = .allocate(capacity: capacity)
        belowInBucket = .allocate(capacity: capacity)
        bucketTops = .allocate(capacity: buckets)
        bucketTops.initialize(repeating: -1, count: buckets)
    }

    deinit {
        steps.deinitialize(count: depth)
        steps.deallocate()
        belowInBucket.deallocate()
        bucketTops.deallocate()
    }

    /// Pushes the step that `make` makes, in place on the stack.
    @inlinable @inline(__always) func push(_ make: () -> Element) {
        if depth == capacity { grow() }
        let top = depth
        (steps + top).initialize(to: make())
        let bucket = steps[top].bucket & bucketMask
        assert(bucketTops[bucket] < Int32(top), "Dirk internal error: a bucket's top is above the stack's")
        belowInBucket[top] = bucketTops[bucket]
        bucketTops[bucket] = Int32(truncatingIfNeeded: top)
        depth = top &+ 1
    }

    /// Pops the top step.
    @inlinable @inline(__always) func pop() {
        assert(depth > 0, "Dirk internal error: a step popped from an empty stack")
        depth &-= 1
        assert(bucketTops[steps[depth].bucket & bucketMask] == depth, "Dirk internal error: a lost bucket")
        bucketTops[steps[depth].bucket & bucketMask] = belowInBucket[depth]
        (steps + depth).deinitialize(count: 1)
    }

    @usableFromInline func grow() {
        steps = Self.moved(steps, count: depth, toCapacity: capacity * 2)
        belowInBucket = Self.moved(belowInBucket, count: depth, toCapacity: capacity * 2)
        capacity *= 2
    }

    /// A buffer of `capacity` holding the `count` elements moved out of `buffer`, which it frees.
    static func moved<Value>(_ buffer: UnsafeMutablePointer<Value>, count: Int, toCapacity capacity: Int)
        -> UnsafeMutablePointer<Value>
    {
        let larger = UnsafeMutablePointer<Value>.allocate(capacity: capacity)
        larger.moveInitialize(from: buffer, count: count)
        buffer.deallocate()
        return larger
    }

    /// The step at `index`, from the bottom.
    @inlinable subscript(index: Int) -> Element {
        assert(index >= 0 && index < depth, "Dirk internal error: step \(index) of \(depth)")
        return steps[index]
    }

    /// The index of the topmost step that is the same as `step`, if any.
    @inlinable @inline(__always) func lastIndex(ofSameAs step: Element) -> Int? {
        // Most steps find their bucket empty: a load and a comparison, before any call.
        let top = bucketTops[step.bucket & bucketMask]
        return top < 0 ? nil : index(ofSameAs: step, from: Int(top))
    }

    /// The index of the topmost step below the top one that is the same as the top one, if any.
    @inlinable @inline(__always) func indexOfTopBelowItself() -> Int? {
        assert(depth > 0, "Dirk internal error: no top step")
        let below = belowInBucket[depth &- 1]
        return below < 0 ? nil : index(ofSameAs: steps[depth &- 1], from: Int(below))
    }

    /// The index of the step that is the same as `step` among those of its bucket, from `index`
    /// down.
    @usableFromInline func index(ofSameAs step: Element, from index: Int) -> Int? {
        var index = index
        while index >= 0 {
            assert(index < depth, "Dirk internal error: a bucket link \(index) above the stack's \(depth)")
            if steps[index].isSame(as: step) { return index }
            index = Int(belowInBucket[index])
        }
        return nil
    }

    /// The steps, bottom first.
    var all: [Element] { (0..<depth).map { steps[$0] } }

    /// The steps from the topmost one that is the same as `step` up to the top, bottom first; none
    /// if no step is the same.
    func all(from step: Element) -> [Element] {
        ((lastIndex(ofSameAs: step) ?? depth)..<depth).map { steps[$0] }
    }
}
