extension StepStack where Element == Step {
    /// Stops the program with the path if the top step, which caches nothing, is under way already
    /// below it, which would recurse without end. A handle's step may come back through a caching
    /// provider's build, whose cell ends the call.
    @inlinable @inline(__always) func stopIfRecursing() {
        guard let index = indexOfTopBelowItself(),
            self[depth &- 1].kind != .handle
                || !(index + 1..<depth - 1).contains(where: { self[$0].isCachingBuild })
        else { return }
        stopRecursion(at: index)
    }

    /// Stops the program with the path from the step at `index` to the top one, the same step.
    @usableFromInline @inline(never) func stopRecursion(at index: Int) -> Never {
        let path = Array(all[index...])
        Diagnostics.recursion(path: path, at: path[path.count - 1], keys: ResolutionContext.stepKeys)
    }

    /// Whether a call made now, from inside the step at `top`, is made directly by the step at
    /// `index`: no provider's step lies between them, nor a key's hashing, which runs before its
    /// provider is observed. (Handles' and module creations' steps do not count: they pass the call
    /// on.)
    func isCalledDirectly(byStepAt index: Int, top: Int) -> Bool {
        guard index <= top, top < depth else { return false }
        return (index + 1..<top + 1).allSatisfy { self[$0].kind != .provider && self[$0].kind != .keyHashing }
    }
}
