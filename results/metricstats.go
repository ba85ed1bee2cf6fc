package results

// ConfidenceLevel is the level of every confidence interval the package reports.
const ConfidenceLevel = 0.95

// Param is one swept parameter's value at a point: the scenario field path and its value as
// text.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// MetricStats is one metric at one point across replications: the mean and the half-width of
// its two-sided Student-t 95 % confidence interval (internal/stats.MeanCI) over the N
// replications where the metric has a value. Mean is NaN when N is 0, CI95 when N < 2.
type MetricStats struct {
	Name string  `json:"name"`
	Mean float64 `json:"mean"`
	CI95 float64 `json:"ci95"`
	N    int     `json:"n"`
}
