package results

// Axis is one parameter a study varies: the scenario field's path and the values it takes, in
// the order given, as the scenario takes them ("2000/s", "5s", "mongodb-2026-03"). A sweep's,
// a map's and a tuning search's grids are axes, and a shard of one of them records its axes
// (experiment.ShardInfo) so that merging checks the shards are of one study.
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}
