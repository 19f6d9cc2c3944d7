/// A module whose providers belong to the main actor: view models, coordinators, anything a
/// screen's UI holds.
///
/// Subclass it instead of ``Module`` for such modules; the subclass and its providers are
/// isolated to the main actor, so main-actor callers call them without `await`:
///
/// ```swift
/// final class ScreenModule: MainActorModule<ScreenComponent>, @unchecked Sendable {
///     func viewModel() -> ScreenViewModel { transient { c in ScreenViewModel(store: c.data.store()) } }
/// }
/// ```
///
/// Dirk creates a module on first use, on the thread that first asks for it. A main-actor module
/// first asked for on another thread stops the program with a message that says so, instead of
/// being created off the main actor. Declare the accessor `@MainActor`
/// (`@MainActor var screens: ScreenModule { module() }`) and the compiler makes sure it never is.
/// See <doc:MainActor>.
@MainActor
open class MainActorModule<C: Component>: Module<C>, @unchecked Sendable {
    nonisolated override class var isMainActorModule: Bool { true }

    /// Creates the module on first use, on the main thread only.
    nonisolated override class func makeDefault(
        for component: Component, file: StaticString, line: UInt
    ) -> AnyModule {
        if !MainActorCheck.isOnMainActor {
            Diagnostics.mainActorModuleOffMainThread(
                self, component: type(of: component), file: file, line: line)
        }
        return super.makeDefault(for: component, file: file, line: line)
    }
}
