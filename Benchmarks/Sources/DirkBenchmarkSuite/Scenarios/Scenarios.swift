/// Every scenario, in the order of the table.
package enum Scenarios {
    package static var all: [Scenario] {
        [
            SingleScenario.scenario,
            SingleCrossModuleScenario.scenario,
            OverrideScenario.singleScenario,
            AsyncSingleScenario.scenario,
            AsyncSingleScenario.transientScenario,
            Transient3Scenario.scenario,
            OverrideScenario.transientScenario,
            Deep10Scenario.scenario,
            Deep100Scenario.scenario,
            Scale1000Scenario.scenario,
            ChildScenario.scenario,
            ParentsScenario.scenario(levels: 1),
            ParentsScenario.scenario(levels: 10),
            RequestScenario.scenario,
            ContendedScenario.scenario,
            ColdScenario.scenario,
            Cold1000Scenario.scenario,
        ]
    }
}
