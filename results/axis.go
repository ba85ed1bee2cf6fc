package results

// Axis is one parameter a study varies: the scenario field's path and the values it takes, in
// the order given, as the scenario takes them ("2000/s", "5s", "mongodb-2026-03"). A sweep's
// parameters (scenarios.Sweep.Axes) and a map's axes are axes, their points made by
// scenarios.Scenario.Grid, and a shard of a map records its axes (ShardInfo) so that merging
// checks the shards are of one study.
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}
