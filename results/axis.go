package results

// Axis is one parameter a study varies: the scenario field's path and the values it takes, in
// the order given, as the scenario takes them ("2000/s", "5s", "mongodb-2026-03"). A sweep's
// parameters (scenarios.Sweep.Axes), a map's axes and a tuning search's grids are axes, the
// points of a sweep's and a map's made by scenarios.Scenario.Grid, and a shard of one of them
// records its axes (experiment.ShardInfo) so that merging checks the shards are of one study.
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}
