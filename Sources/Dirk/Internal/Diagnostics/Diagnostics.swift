/// Every message with which Dirk stops a program that misuses it.
///
/// Each message starts with `Dirk:`, names the component, module and provider involved in
/// backticks, and ends with how to fix the problem. The trap reports the user's file and line: the
/// provider's for cycles and released components, the accessor's or builder call's for the others.
/// The Errors article lists every message; `DirkReliabilityTests/MisuseTests` checks each one. Each
/// function names the article's entry for each message it prints, in order, on lines
/// `/// ErrorMessages: "..."` of its doc comment, and `.ci/check-error-catalog` checks that every
/// message has its entry.
@usableFromInline package enum Diagnostics {
    /// Where the user's call that a message reports was made: its file and line.
    typealias Call = (file: StaticString, line: UInt)

    // MARK: Cycles

    /// A step needs, directly or through others, the instance it is building, on one agent.
    /// ErrorMessages: "dependency cycle"
    static func cycle(path: [Step], at step: Step, keys: [UInt: AnyHashable]) -> Never {
        """
        Dirk: dependency cycle: \(names(path, keys)). `\(step.name)`\(keySuffix(step, keys)) of \
        `\(step.componentType)` requires itself while it is being built. \(cycleAdvice(path))
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// A provider that caches nothing is already on the stack.
    /// ErrorMessages: "dependency cycle"
    /// ErrorMessages: "dependency cycle"
    static func recursion(path: [Step], at step: Step, keys: [UInt: AnyHashable]) -> Never {
        if step.kind == .injection {
            """
            Dirk: dependency cycle: \(names(path, keys)). `\(step.name)` from `\(step.componentType)` \
            fills the same object again while it fills it: what one of its properties resolves injects that \
            object again with an injector of the same type, which would recurse without end. Inject an \
            object once, from the code that owns it, and let providers return what its properties need \
            without injecting it.
            """.stop(file: step.site.file, line: step.site.line)
        }
        """
        Dirk: dependency cycle: \(names(path, keys)). `\(step.name)` of `\(step.componentType)` calls \
        itself while it is being built. Dirk reports any recursion through one provider, even with other \
        arguments, because it cannot tell an endless one from one that ends. \(recursionAdvice(path))
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// How to end a recursion through `path`, with what its steps can take.
    private static func recursionAdvice(_ path: [Step]) -> String {
        if path.contains(where: { $0.kind == .handle }) {
            return """
                A handle resolves its value when it is called or first read: call it after the code that \
                resolves it has returned, not from within its own resolution.
                """
        }
        // `configure:` helps when a step of the path can take one and the others cache nothing.
        let configures = path.contains { $0.strategy.takesConfigure } && path.allSatisfy(isConfigurable)
        return """
            Build a recursive structure in a plain function that the provider calls, or break a cycle \
            between objects \(configures ? "with `configure:` closures" : "with a `Lazy` or `Provider` handle, read after the provider has returned").
            """
    }

    /// Agents each wait for a build another of them runs.
    /// ErrorMessages: "dependency cycle across threads"
    static func cycleAcrossAgents(path: [Step], at step: Step, keys: [UInt: AnyHashable]) -> Never {
        """
        Dirk: dependency cycle across threads: \(names(path, keys)). In `\(step.componentType)` and its \
        parents, two or more threads or tasks each build an instance that needs an instance another of them \
        is building, so none can finish. \(cycleAdvice(path))
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// How to break a cycle through `path`, with what its steps can take.
    private static func cycleAdvice(_ path: [Step]) -> String {
        if let creation = path.first(where: { $0.kind == .moduleCreation }) {
            return """
                A module's initializer runs when its component first needs the module, so it cannot use \
                providers that need `\(creation.subject)` itself: do that work in a provider, or take a \
                `Lazy` handle in the initializer and read it later.
                """
        }
        if path.contains(where: { $0.kind == .handle }) {
            return """
                A handle resolves when it is read (a `Lazy` on its first read, a `Provider` on every call): \
                read it after the provider that built the handle has returned, not while that provider is \
                still being built.
                """
        }
        let providers = path.filter { $0.kind == .provider }
        if !providers.isEmpty, providers.allSatisfy(isConfigurable) {
            // The example names the path's first provider that takes `configure:`, with its own
            // strategy, and the provider it needs next.
            let index = providers.firstIndex { $0.strategy.takesConfigure } ?? 0
            let first = providers[index]
            let next = providers[(index + 1) % providers.count]
            return """
                Break the cycle: build both objects without each other and let them set each other in \
                `configure:` closures, as `\(first.name)` could: build its instance without \
                `\(next.name)`, and set the reference in a `configure:` closure passed to its \
                `\(first.strategy.name)`, which receives the new instance and the component once it is cached. \
                Or construct one side from a value that does not need the other.
                """
        }
        return """
            Break the cycle: let one side take a handle to the other (a `Lazy` made by the component's \
            `lazy`) and read it after both are built, or construct one side from a \
            value that does not need the other. \(providers.contains { !$0.strategy.takesConfigure } ? "An async `transient` or `scoped` takes no `configure:`." : "")
            """
    }

    /// Whether `configure:` closures can break a cycle through `step`, as far as it goes: its
    /// strategy takes one, or caches nothing.
    private static func isConfigurable(_ step: Step) -> Bool {
        step.strategy.takesConfigure || step.strategy == .transient
    }

    /// A handle's value was read while the handle, whose step is `step`, resolved it.
    /// ErrorMessages: "a Lazy<...> of ..., made at ..., was read while it was resolving its own value"
    static func handleReadWhileResolving(_ step: Step) -> Never {
        """
        Dirk: \(article(step.name)) `\(step.name)` of `\(step.componentType)`, made at \(step.site.location), \
        was read while it was resolving its own value, so it can never finish. Read it after the provider \
        that builds the value has returned, for example in a method called later, not in the value's own \
        factory or `configure:` closure.
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// A key's `hash(into:)` or `==` called the keyed provider it is a key of.
    /// ErrorMessages: "the key of ... called ... from its hash(into:) or =="
    static func keyReentered(at step: Step) -> Never {
        """
        Dirk: the key of `\(step.name)` of `\(step.componentType)` called `\(step.name)` from its \
        `hash(into:)` or `==`, which Dirk runs to find the key's instance, so finding it would never end. \
        Make the key a plain value whose hashing and equality resolve nothing.
        """.stop(file: step.site.file, line: step.site.line)
    }

    // MARK: Lifetime

    /// A provider needed its component after the component was released.
    /// ErrorMessages: "was called after its component ... was released"
    static func componentReleased(provider: String, component: Any.Type, site: ProviderSite) -> Never {
        """
        Dirk: `\(provider)` was called after its component `\(component)` was released. A module does not \
        keep its component alive: keep a reference to the component (for example in the object that owns its \
        scope) for as long as you use its modules. A chain on a temporary, such as \
        `\(component)().someModule.someProvider()`, releases the component before the provider runs: store \
        the component in a constant first. A module kept in a property or captured by a closure does not \
        keep it alive either: keep or capture the component, and reach the module through it. The call that \
        used the module is the caller of `\(provider)` in the backtrace.
        """.stop(file: site.file, line: site.line)
    }

    /// A component's accessor was used while the component was being deinitialized.
    /// ErrorMessages: "was used while ... was being deinitialized"
    @usableFromInline @inline(never) static func usedWhileDeinitializing(
        _ member: Any.Type, component: Any.Type, file: StaticString, line: UInt
    ) -> Never {
        """
        Dirk: `\(member)` of `\(component)` was used while `\(component)` was being deinitialized, for \
        example from its `deinit`. A component cannot resolve anything once its release has begun: its \
        instances are about to be released with it. Keep what the `deinit` needs in a stored property of the \
        component, or clean up in the object that owns the component before it lets the component go.
        """.stop(file: file, line: line)
    }

    /// A handle, whose step is `step`, was read after its component was released.
    /// ErrorMessages: "... made at ... was read after its component ... was released"
    static func handleAfterRelease(_ step: Step) -> Never {
        """
        Dirk: \(article(step.name)) `\(step.name)` made at \(step.site.location) was read after its component \
        `\(step.componentType)` was released. A handle refers to its component without keeping it alive, so \
        that an instance the component caches may hold one without a retain cycle: keep the component for as \
        long as its handles are read. A handle read in the `deinit` of an instance the component cached runs \
        while the component is being released: read it before, or keep what the `deinit` needs in a stored \
        property of that instance.
        """.stop(file: step.site.file, line: step.site.line)
    }

    // MARK: Providers

    /// Two providers share one cell, that of `step`'s provider, but cache differently: the first with
    /// `first`.
    /// ErrorMessages: "two providers named ... would share one cache slot"
    static func providerClash(_ step: Step, first: ProviderStrategy) -> Never {
        let site = step.site
        """
        Dirk: two providers named `\(step.subject).\(site.function)` of `\(step.componentType)` call their \
        strategy at \(site.location), column \(site.column), with one return type, so they would share one \
        cache slot, but one uses `\(first.name)` and the other `\(step.strategy.name)`. This happens when a \
        macro or `#sourceLocation` gives two providers one position. Give the providers different names, or \
        have the generated code call each strategy at a position of its own.
        """.stop(file: site.file, line: site.line)
    }

    /// `error`, thrown by a build that another caller of the same provider waited for, as the
    /// waiter's own error type: the same type, since the builder ran the same provider, unless an
    /// override threw what the provider cannot. Also the failure of a resolution's end in a step
    /// that throws nothing (`Never`): its outermost call cannot return, and the program stops.
    ///
    /// A `ResolutionEndFailure` stays one where the type admits any error, so that the strategy
    /// that rethrows it as the provider's own error names the provider (see
    /// `providerError(_:as:step:overrides:)`).
    static func typedError<Failure: Error>(_ error: any Error, as _: Failure.Type, at step: Step) -> Failure {
        error as? Failure ?? providerError(error, as: Failure.self, step: step)
    }

    /// `error`, which the step `step` (a provider, or a handle, a module's creation, a key's hashing
    /// or an injection, which throw nothing) got, as the step's error type; stops the program when
    /// the step cannot throw it. The providers' own rethrow, for which `step` is made only if it
    /// is needed.
    ///
    /// A `ResolutionEndFailure` made the outermost step of a resolution fail: it becomes the error
    /// of the build it names, and a step that cannot throw that error cannot return
    /// (`resolutionCannotReturn`). Any other error that is not a `Failure` has another type than
    /// the provider throws: only an override's factory (of those at `overrides`), which throws
    /// untyped, can do that (`overrideThrewAnotherType`).
    @usableFromInline static func providerError<Failure: Error>(
        _ error: any Error, as _: Failure.Type, step: @autoclosure () -> Step,
        overrides: @autoclosure () -> [String] = []
    ) -> Failure {
        guard let end = error as? ResolutionEndFailure else {
            if let error = error as? Failure { return error }
            overrideThrewAnotherType(error, as: Failure.self, step: step(), overrides: overrides())
        }
        if let error = end.failure.error as? Failure { return error }
        resolutionCannotReturn(step(), as: Failure.self, after: end.failure)
    }

    /// An override's factory, one of those set up at `places`, threw `error`, which the provider of
    /// `step` cannot throw, since it throws only `Failure`: the override's factory throws untyped.
    /// ErrorMessages: "got an error of type ..., which it cannot throw"
    private static func overrideThrewAnotherType<Failure: Error>(
        _ error: any Error, as _: Failure.Type, step: Step, overrides places: [String]
    ) -> Never {
        let origin =
            switch places.count {
            case 0: "Only the factory of an `overriding(_:with:)` of `\(step.name)`"
            case 1: "Only the factory of the `overriding(_:with:)` of `\(step.name)` at \(places[0])"
            default:
                "Only the factory of one of the `overriding(_:with:)` calls of `\(step.name)`, at "
                    + places.joined(separator: " and ") + ","
            }
        let fix =
            Failure.self == Never.self
            ? "Make the override's factory return a fake instead of throwing; to test a failure, "
                + "override a provider that throws"
            : "Make the override's factory throw only `\(Failure.self)`; to test a failure of another "
                + "type, override a provider that throws it"
        """
        Dirk: `\(step.name)` of `\(step.componentType)`, whose strategy is called at \(step.site.location), \
        got an error of type `\(type(of: error))`, which it cannot throw: it \(promise(Failure.self)). \
        \(origin) can throw what the provider cannot, on this call or on the build that this call waited \
        for, and the provider's typed throws promise its callers that this never happens. \(fix).
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// The outermost step `step` of a resolution, which throws only `Failure`, cannot return: the
    /// resolution took another thread's half-configured instance to break a cycle through
    /// `configure:`, and that build then failed, with `failure`, which the step cannot throw.
    /// ErrorMessages: "cannot return: to break a cycle through configure:, its resolution took an instance"
    private static func resolutionCannotReturn<Failure: Error>(
        _ step: Step, as _: Failure.Type, after failure: BuildFailure
    ) -> Never {
        let name = step.name
        let site = step.site
        let owner = " of `\(step.componentType)`"
        let call: String
        let cannot: String
        let fix: String
        switch step.kind {
        // A key's hashing hands its failure to its provider, whose step this is.
        case .provider, .keyHashing:
            call = "`\(name)`\(owner), whose strategy is called at \(site.location), cannot return"
            cannot = "`\(name)` \(promise(Failure.self)), so it cannot report that error"
            fix = "Let `\(name)` throw the error"
        case .handle:
            call = "`\(name)`\(owner), made at \(site.location), cannot return its value"
            cannot = "a handle cannot throw, so it cannot report that error"
            fix = "Call the provider with `try` instead of through the handle"
        case .moduleCreation:
            call = "`\(name)`\(owner), asked for at \(site.location), cannot be created"
            cannot = "a module's initializer cannot throw, so it cannot report that error"
            fix = "Resolve the provider outside the module's initializer"
        case .injection:
            call = "`\(name)`\(owner), called at \(site.location), cannot fill its object"
            cannot = "an injection cannot throw, so it cannot report that error"
            fix = "Resolve the provider with `try` and set the property yourself"
        }
        let failed = failure.step
        """
        Dirk: \(call): to break a cycle through `configure:`, its resolution took an instance from another \
        thread before that thread's `configure:` closures had finished; then the `configure:` of \
        `\(failed.name)` of `\(failed.componentType)` (\(failed.site.location)) threw \
        `\(failure.error)`, which dropped that instance or one it may refer to. What this call returns \
        may refer to it, and \(cannot). \(fix), make the `configure:` closures of the cycle not throw, or \
        resolve the cycle on one thread first, where the error reaches the caller.
        """.stop(file: site.file, line: site.line)
    }

    /// What a step that throws only `Failure` promises its callers, as messages say it.
    private static func promise<Failure: Error>(_: Failure.Type) -> String {
        Failure.self == Never.self ? "throws nothing" : "throws only `\(Failure.self)`"
    }

    // MARK: Parents

    /// The accessor at `file` and `line` found no ancestor of type `parent` among `ancestors`, nearest
    /// first, which are none when the component has no parents. `overriding` is the `file:line` of an
    /// `overriding(_:with:)` under way on this thread, which resolves its provider at once, before the
    /// parents registered after it in a chain; `givenAt` is where the component was first given a
    /// parent. `parentIsComponent` tells whether `parent` is a component class, which an ancestor can
    /// be.
    /// ErrorMessages: "was asked for an ancestor of type ..., a class that is not a component"
    /// ErrorMessages: "has no ancestor that conforms to"
    /// ErrorMessages: "has no parent of type"
    static func missingParent(
        _ parent: Any.Type, parentIsComponent: Bool, component: Any.Type, ancestors: [Any.Type],
        givenAt: (file: StaticString, line: UInt)?, overriding: String?, file: StaticString, line: UInt
    ) -> Never {
        if parent is AnyObject.Type && !parentIsComponent {
            """
            Dirk: `\(component)` was asked for an ancestor of type `\(parent)`, a class that is not a \
            component, which no ancestor can be. The accessor at \(file):\(line) asked for it. Ask for a \
            component class, or for a protocol that a component conforms to.
            """.stop(file: file, line: line)
        }
        var known =
            "The accessor at \(file):\(line) asked for one. "
            + (ancestors.isEmpty
                ? "It has no parents."
                : "It searched its ancestors, nearest first: "
                    + ancestors.map { "`\($0)`" }.joined(separator: ", ")
                    + (givenAt.map { " (its parents given from \($0.file):\($0.line))." } ?? "."))
        if let overriding {
            known +=
                " The lookup was made by the `overriding(_:with:)` at \(overriding), "
                + "which resolves its provider at once: register parents before overriding providers."
        }
        let whenBuilt = "on the new `\(component)` when you build it, before its first resolution"
        guard parent is AnyObject.Type else {
            // `ancestor()` of a protocol: no ancestor conforms.
            let conform =
                ancestors.first.map {
                    "Make one of them conform, where it can provide what `\(parent)` requires: "
                        + "`extension \($0): \(parent)`, with its requirements. Or open"
                } ?? "Open"
            """
            Dirk: `\(component)` has no ancestor that conforms to `\(parent)`. \(known) \(conform) \
            `\(component)` under a component that conforms, \(whenBuilt): \
            `.parent(\(propertyName(for: parent))Component)`. `ancestor()` finds components; to get an \
            instance of `\(parent)` that a provider makes, call that provider instead.
            """.stop(file: file, line: line)
        }
        """
        Dirk: `\(component)` has no parent of type `\(parent)`, nor does any of its ancestors. \(known) \
        Register one \(whenBuilt): `.parent(\(propertyName(for: parent)))`.
        """.stop(file: file, line: line)
    }

    /// ErrorMessages: "cannot become a parent of"
    static func parentCycle(_ parent: Any.Type, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(parent)` cannot become a parent of `\(component)`: it is `\(component)` itself or one of \
        its descendants, so the two would hold each other forever. Register parents from the wider scope \
        down: the application component is the parent of the session component, never the reverse.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "already has a parent registered as"
    static func duplicateParent(_ parent: Any.Type, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component)` already has a parent registered as `\(parent)`. A component has at most one \
        parent per type, so that `parent()` is never ambiguous. Register it once, or build a new component \
        to use another.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "gained the parent ... after a parent lookup had searched its parents"
    static func lateParent(_ parent: Any.Type, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component)` gained the parent `\(parent)` after a parent lookup had searched its parents \
        (its own lookup, or that of a component under it), so earlier lookups could have found a different \
        one. Register every `.parent(_:)` when you build the component, before the first resolution in it or \
        in any component under it.
        """.stop(file: call.file, line: call.line)
    }

    // MARK: Modules

    /// ErrorMessages: "registered a module for ... after ... was already in use"
    static func lateModule(_ module: Any.Type, registered: Any.Type, component: Any.Type, at call: Call)
        -> Never
    {
        let what = module == registered ? "a module for `\(module)`" : "`\(registered)` for `\(module)`"
        """
        Dirk: `\(component)` registered \(what) after `\(module)` was already in use, so some instances \
        would come from the old module and some from the new one. Register modules with `.module { }` when \
        you build the component, before the first resolution.
        """.stop(file: call.file, line: call.line)
    }

    /// `component` was to create `module`, a module of `owner`, by a path that skipped the
    /// accessor's compile-time check.
    /// ErrorMessages: "was asked for the module ..., a module of ..."
    static func moduleOfAnotherComponent(
        _ module: Any.Type, owner: Any.Type, component: Any.Type, at call: Call
    ) -> Never {
        let ownerName = propertyName(for: owner)
        let moduleName = propertyName(for: module)
        """
        Dirk: `\(component)` was asked for the module `\(module)`, a module of `\(owner)`, which it cannot \
        create: a module belongs to the component of its `Module<...>`. Declare the accessor on `\(owner)`, \
        where the compiler checks it: `var \(moduleName): \(module) { module() }`. If `\(component)` is a \
        child of `\(owner)`, reach the module through a parent accessor of `\(component)`: \
        `var \(ownerName): \(owner) { parent() }`, then `\(ownerName).\(moduleName)`.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "was given a ... to register as ..., which it is not"
    static func registeredAsAnotherType(
        _ registered: Any.Type, as type: Any.Type, kind: String, component: Any.Type, at call: Call
    ) -> Never {
        """
        Dirk: `\(component)` was given a \(kind) `\(registered)` to register as `\(type)`, which it is not: \
        accessors that ask for `\(type)` would get `\(registered)`. The type comes from a variable that \
        holds a subclass's type; register the \(kind) as its own type or as one of its superclasses, or make \
        the closure return a `\(type)`.
        """.stop(file: call.file, line: call.line)
    }

    /// A component was given a module of its type made for another component.
    /// ErrorMessages: "was given the module ..., which was created for another component"
    static func foreignModule(_ module: Any.Type, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component)` was given the module `\(module)`, which was created for another component. \
        Create the module from the component the closure receives: `.module { \(module)($0) }`.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "was asked for its module ..., a MainActorModule, on a thread other than the main thread"
    static func mainActorModuleOffMainThread(_ module: Any.Type, component: Any.Type, at call: Call) -> Never
    {
        """
        Dirk: `\(component)` was asked for its module `\(module)`, a `MainActorModule`, on a thread other \
        than the main thread, so the module would be created off the main actor. Ask for it on the main \
        actor first, or declare the accessor that returns it `@MainActor` (as in \
        `@MainActor var \(propertyName(for: module)): \(module) { module() }`), so that the compiler makes \
        sure of it.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "was resolved on a thread other than the main thread"
    static func mainActorContributionOffMainThread(
        key: Any, element: Any.Type, component: Any.Type, at call: Call
    ) -> Never {
        """
        Dirk: the contribution \(String(reflecting: key)) to the collection of `\(element)`, which \
        `\(component)` contributed with `contributeOnMainActor`, was resolved on a thread other than the \
        main thread, where its closure cannot run. Resolve the collection on the main actor (a `@MainActor` \
        function, or `await MainActor.run { ... }`), or contribute the element with `contribute`, from a \
        closure that runs on any thread.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "was given the module ..., a MainActorModule, on a thread other than the main thread"
    static func mainActorModuleRegisteredOffMainThread(_ module: Any.Type, component: Any.Type, at call: Call)
        -> Never
    {
        """
        Dirk: `\(component)` was given the module `\(module)`, a `MainActorModule`, on a thread other than \
        the main thread, so the closure of `.module { }` created it off the main actor. Register it on the \
        main actor: build the component in `@MainActor` code, or in a closure that `MainActor.run` runs.
        """.stop(file: call.file, line: call.line)
    }

    // MARK: Reset and shutdown

    /// `reset()` or `shutdown()`, `method`, was called inside one of the component's own resolutions.
    /// ErrorMessages: "reset() was called while ... was being resolved", "shutdown() was called while ... was being resolved"
    static func calledDuringResolution(_ method: String, component: Any.Type, provider: String, at call: Call)
        -> Never
    {
        let consequence =
            method == "reset()"
            ? "Resetting would drop instances the resolution is still using. Call `reset()` outside providers "
                + "and `configure:` closures, for example after the sign-out flow has finished."
            : "Shutdown waits for the builds under way, so it would wait for itself. Call `shutdown()` outside "
                + "providers, where the application or scope ends."
        """
        Dirk: `\(component).\(method)` was called while `\(provider)` of that component was being resolved on \
        the same thread or task. \(consequence)
        """.stop(file: call.file, line: call.line)
    }

    /// `component`'s `shutdown()` was called in a resolution that has entered the component, in the
    /// step `step` of another component.
    /// ErrorMessages: "shutdown() was called in ... of ..., whose resolution has entered ..."
    static func shutdownAwaitedByResolution(_ step: Step, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component).shutdown()` was called in `\(step.name)` of `\(step.componentType)`, whose \
        resolution has entered `\(component)`: it called a provider of `\(component)`, directly or through \
        other components or tasks, and counts as a call in `\(component)` until it ends. Shutdown waits \
        for every call in the component to end, so it would wait for itself. Call `shutdown()` outside \
        providers, where the application or scope ends, once the work that uses `\(component)` is done.
        """.stop(file: call.file, line: call.line)
    }

    /// A provider was called, outside any build under way, after its component began to shut down.
    /// ErrorMessages: "was called after its component ... was shut down"
    static func calledAfterShutdown(provider: String, component: Any.Type, site: ProviderSite) -> Never {
        """
        Dirk: `\(provider)` was called after its component `\(component)` was shut down. `shutdown()` closes \
        what the component built, so the component serves nothing more. Finish the work that uses it before \
        calling `shutdown()` (a server stops accepting requests first), or make a new component for new \
        work. The call is the caller of `\(provider)` in the backtrace.
        """.stop(file: site.file, line: site.line)
    }

    /// A handle, `handle` made at `site`, was read after its component began to shut down; reading
    /// it calls `provider`, if its closure called one of the component's providers before it returned.
    /// ErrorMessages: "... made at ... was read after its component ... was shut down"
    static func handleReadAfterShutdown(
        _ handle: String, site: ProviderSite, provider: String?, component: Any.Type
    ) -> Never {
        let reads = provider.map { ": reading it calls `\($0)`, which the component no longer serves" } ?? ""
        """
        Dirk: \(article(handle)) `\(handle)` made at \(site.location) was read after its component \
        `\(component)` was shut down\(reads). `shutdown()` closes what the component built, so the component \
        serves nothing more. Read the handle before calling `shutdown()`, in the work that the shutdown \
        waits for (a `Lazy` read once keeps its value), or make a new component for new work.
        """.stop(file: site.file, line: site.line)
    }

    /// The close action of `closing`, run as `component` shuts down, called the provider of `step`.
    /// ErrorMessages: "was called by the close action of ... while its component ... was shutting down"
    static func calledByCloseAction(_ step: Step, closing: String, component: Any.Type) -> Never {
        """
        Dirk: `\(step.name)` was called by the close action of `\(closing)` while its component \
        `\(component)` was shutting down. A close action runs after every call into the component has ended, \
        and the component builds nothing more. Close the instance with what it holds: give it what its close \
        action needs in the factory, where the component `c` is at hand, as in \
        `single { c in Connection(pool: c.storage.pool()) } close: { await $0.close() }`.
        """.stop(file: step.site.file, line: step.site.line)
    }

    /// A close action of `component` called its `shutdown()`.
    /// ErrorMessages: "shutdown() was called by the close action of ..."
    static func shutdownInCloseAction(component: Any.Type, provider: String, at call: Call) -> Never {
        """
        Dirk: `\(component).shutdown()` was called by the close action of `\(provider)`, which that shutdown \
        runs, so it would wait for itself. A close action closes its own instance only: call `shutdown()` \
        once, where the application or scope ends.
        """.stop(file: call.file, line: call.line)
    }

    /// The message for a component released, without `shutdown()`, with instances to close.
    /// ErrorMessages: "was released without shutdown() while it held instances with close actions"
    static func releasedWithoutShutdown(component: Any.Type, providers: [String]) -> String {
        """
        Dirk: warning: `\(component)` was released without `shutdown()` while it held instances with \
        close actions, which never ran: \(providers.map { "`\($0)`" }.joined(separator: ", ")). Call \
        `try await component.shutdown()` before releasing the component. (Debug builds only.)

        """
    }

    // MARK: Contributions

    /// ErrorMessages: "contributed ... under the key ..., which ... already uses"
    static func duplicateContribution(
        key: Any, element: Any.Type, component: Any.Type, owner: Any.Type, at call: Call
    ) -> Never {
        """
        Dirk: `\(component)` contributed `\(element)` under the key \(String(reflecting: key)), which \
        `\(owner)` already uses in that collection. A component's contributions add to its parents' and \
        never replace them, and keys are unique within a collection: choose another key, or contribute the \
        element once, from the component that owns it.
        """.stop(file: call.file, line: call.line)
    }

    /// A collection being listed holds two contributions under one key: `first`, an ancestor's or
    /// the component's own, and `second`, made by a component that could not see `first` when it
    /// contributed (a parent registered after its child contributed).
    /// ErrorMessages: "the collection of ... holds two contributions under the key ..."
    static func duplicateContributionListed(
        key: Any, element: Any.Type, first: Any.Type, second: Any.Type, at call: Call
    ) -> Never {
        """
        Dirk: the collection of `\(element)` holds two contributions under the key \(String(reflecting: key)), one from \
        `\(first)` and one from `\(second)`, found as the collection was listed here. `\(second)` \
        contributed before `\(first)` became its ancestor, usually because a parent was registered after its \
        child contributed, so the contribution could not be checked then. Keys are unique within a \
        collection: choose another key for one of them, or contribute the element once, from the component \
        that owns it; register parents before contributing, so that a clash stops at the contribution.
        """.stop(file: call.file, line: call.line)
    }

    /// A contribution was resolved after the component that contributed it was released.
    /// ErrorMessages: "the contribution ... was resolved after its component ... was released"
    static func contributionAfterRelease(key: Any, element: Any.Type, component: Any.Type, at call: Call)
        -> Never
    {
        """
        Dirk: the contribution \(String(reflecting: key)) to the collection of `\(element)` was resolved \
        after its component `\(component)` was released. A contribution refers to its component without \
        keeping it alive, so that an instance the component caches may hold contributions without a retain \
        cycle: keep the component for as long as you resolve its contributions. A contribution resolved in \
        the `deinit` of an instance that the component cached runs as the component releases it: resolve it \
        before, or keep what the `deinit` needs in a stored property of that instance.
        """.stop(file: call.file, line: call.line)
    }

    // MARK: Overrides

    /// ErrorMessages: "overrode ... after that provider was already used"
    static func lateOverride(_ provider: String, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component)` overrode `\(provider)` after that provider was already used, so some callers \
        would have the original instance and some the override's. Override providers when you build the \
        component, before the first resolution. An earlier `overriding(_:with:)` uses its provider at once, \
        and with it what the override's factory uses: if such a factory uses `\(provider)`, override \
        `\(provider)` first.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "the closure given to ... overriding(_:with:) called no provider"
    static func overrideCalledNoProvider(component: Any.Type, isAsync: Bool, at call: Call) -> Never {
        """
        Dirk: the closure given to `\(component).overriding(_:with:)` called no provider of that component, \
        so Dirk cannot tell which one to override. Call exactly one provider in it, through the component it \
        receives: \(isAsync ? "`await $0.`" : "`$0.`") then a module accessor and the provider. A provider \
        reached through another instance of a component is not one of this component's.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "the closure given to ... overriding(_:with:) called ... and then ..."
    static func overrideCalledSeveralProviders(
        _ first: String, _ second: String, component: Any.Type, at call: Call
    ) -> Never {
        """
        Dirk: the closure given to `\(component).overriding(_:with:)` called `\(first)` and then \
        `\(second)`; it must call exactly one provider, the one to override. Override each provider with its \
        own `overriding(_:with:)` call.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "the async ... overriding(_:with:) called ..., whose strategy is synchronous"
    static func asyncOverrideOfSynchronousProvider(_ provider: String, component: Any.Type, at call: Call)
        -> Never
    {
        """
        Dirk: the async `\(component).overriding(_:with:)` called `\(provider)`, whose strategy is \
        synchronous and so cannot await the override's factory. If the provider is synchronous, override it \
        with the synchronous `overriding(_:with:)`, with no `await` in either closure. If it is async, its \
        strategy is synchronous because its factory does not await, so Swift chose the synchronous strategy \
        (and warned that no async operations occur within `await`): write the strategy without `await`, or \
        make its factory await.
        """.stop(file: call.file, line: call.line)
    }

    /// ErrorMessages: "gave ... a factory that takes a key of type ..., but ... is"
    static func overrideKeyOfAnotherType(
        _ provider: String, key: AnyHashable?, expected: Any.Type, component: Any.Type, at call: Call
    ) -> Never {
        let takes =
            key.map { "\(type(of: $0.base))" }
            .map { "`single(key:)` provider, whose key is \(article($0)) `\($0)`" }
            ?? "provider that takes no key"
        """
        Dirk: `\(component).overriding(_:with:)` gave `\(provider)` a factory that takes a key of type \
        `\(expected)`, but `\(provider)` is a \(takes). Give the factory the provider's key type, \
        `with: { c, key in ... }` for a `single(key:)` provider, or write it without the key, `with: { c in ... }`.
        """.stop(file: call.file, line: call.line)
    }

    /// The override on `component` called the provider of `step`, which one of its ancestors owns.
    /// ErrorMessages: "overriding(_:with:) called ..., which belongs to ..., one of its ancestors"
    static func overrideOfAnotherComponent(_ step: Step, component: Any.Type, at call: Call) -> Never {
        """
        Dirk: `\(component).overriding(_:with:)` called `\(step.name)`, which belongs to \
        `\(step.componentType)`, one of its ancestors. An override applies to the component that owns the \
        provider, and would change it for every other child too: override it on `\(step.componentType)` \
        itself, with the same closures, before it becomes a parent.
        """.stop(file: call.file, line: call.line)
    }

    /// The override of `step`'s provider makes a `returns`, which is not the type its strategy builds.
    /// A closure that is not `@Sendable`, for a strategy that builds one, has its own wording in the
    /// same entry.
    /// ErrorMessages: "cannot override ...: its ... builds ..., which becomes the ... that the provider returns"
    /// ErrorMessages: "cannot override ...: its ... builds ..., which becomes the ... that the provider returns"
    static func overrideOfAnotherType(_ step: Step, returns: Any.Type, component: Any.Type, at call: Call)
        -> Never
    {
        let strategy = step.strategy
        let built = spelled(step.type)
        let returned = spelled(returns)
        // The strategy builds a `@Sendable` closure, and Swift took the override's type from a
        // closure that is not: the fix is in the override.
        if built == "@Sendable " + returned {
            """
            Dirk: `\(component).overriding(_:with:)` cannot override `\(step.name)`: its `\(strategy.name)` \
            builds `\(built)`, and the override's factory makes `\(returned)`, the same type without \
            `@Sendable`, since Swift took the override's type from the closure its factory returns, which is \
            not `@Sendable`. Give that closure the provider's type: end it with `as \(built)`, or write \
            `@Sendable` after its opening brace.
            """.stop(file: call.file, line: call.line)
        }
        // The strategy as a call spells it: `single(key:)` takes a key, a `weak` of a protocol type
        // its object. An async factory's value is the user's to await, so it has no example.
        let written = strategy == .keyedSingle ? "single(key: key)" : strategy.name
        let object = strategy == .weak ? " object: { $0 }" : ""
        let example =
            strategy.isAsync
            ? "after what it awaits" : "as in `\(written) { \(built)() as \(returned) }\(object)`"
        // A shared instance (one a cell keeps) of a protocol type needs a `Sendable` protocol, and a
        // `weak` one a class-bound protocol, which the type's name does not tell.
        let name = returned.dropFirst(4)
        let make =
            !returned.hasPrefix("any ") || !strategy.buildsInCell
            ? "Make"
            : strategy == .weak
                ? "If `\(name)` is `Sendable` and requires `AnyObject`, make"
                : "If `\(name)` is `Sendable`, make"
        """
        Dirk: `\(component).overriding(_:with:)` cannot override `\(step.name)`: its `\(strategy.name)` \
        builds `\(built)`, which becomes the `\(returned)` that the provider returns only after Dirk has \
        handed it back, so no other type can take its place. \(make) the strategy build `\(returned)`: end \
        its factory with `as \(returned)`, \(example). Or register a module subclass with `.module { }`.
        """.stop(file: call.file, line: call.line)
    }

    // MARK: Helpers

    /// `type` as Swift source spells it: `any Mailer` for an existential, which the runtime
    /// names `Mailer`.
    static func spelled(_ type: Any.Type) -> String {
        let name = "\(type)"
        let isExistential = "\(Swift.type(of: type))".hasSuffix(".Protocol")
        return isExistential && name != "Any" && name != "AnyObject" ? "any \(name)" : name
    }

    private static func names(_ path: [Step], _ keys: [UInt: AnyHashable]) -> String {
        path.map { $0.name + keySuffix($0, keys) }.joined(separator: " -> ")
    }

    /// ` for key "x"` after the name of a `single(key:)` step whose key `keys` holds, by the
    /// step's owner (the key's cell); empty for every other step.
    private static func keySuffix(_ step: Step, _ keys: [UInt: AnyHashable]) -> String {
        guard step.kind == .provider, step.strategy.isKeyed else { return "" }
        return keys[step.owner].map { " for key \(String(reflecting: $0.base))" } ?? ""
    }

    /// "an" before a name that starts with a vowel (`AsyncLazy<Store, Never>`), "a" before others.
    private static func article(_ name: String) -> String {
        name.first.map { "AEIOUaeiou".contains($0) } == true ? "an" : "a"
    }

    /// The name of a property that holds a `type`, as a hint's sample declaration spells it: the
    /// type's name without its generic arguments, with its leading capitals lowered as Swift's API
    /// guidelines lower an acronym (`URLComponent` to `urlComponent`, `AppComponent` to
    /// `appComponent`), and in backticks if it is a keyword (`` `default` ``).

    package static func propertyName(for type: Any.Type) -> String {
        let letters = Array("\(type)".prefix { $0 != "<" })
        var capitals = letters.prefix(while: \.isUppercase).count
        // An acronym leaves its last capital to the word that follows it.
        if capitals > 1, capitals < letters.count, letters[capitals].isLowercase { capitals -= 1 }
        let name = String(letters[..<capitals]).lowercased() + String(letters[capitals...])
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// The keywords that a property name made from a type's name could collide with.
    private static let keywords: Set<String> = [
        "associatedtype", "break", "case", "catch", "class", "continue", "default", "defer", "deinit", "do",
        "else", "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard", "if",
        "import", "in", "init", "inout", "internal", "is", "let", "nil", "open", "operator", "private",
        "precedencegroup", "protocol", "public", "repeat", "rethrows", "return", "self", "static", "struct",
        "subscript", "super", "switch", "throw", "throws", "true", "try", "typealias", "var", "where",
        "while",
    ]
}

extension String {
    /// Stops the program with this message, reported at `file` and `line`.
    fileprivate func stop(file: StaticString, line: UInt) -> Never {
        fatalError(self, file: file, line: line)
    }
}
