package results

import "fmt"

// Capacity is where a run's load sits against what its configuration can serve, as the
// scenario says before the run (scenarios.Scenario.LoadContext): the load it offers as
// configured and its configured ceiling. A run's summary carries it, so that its report and its
// figures say where today's load sits without the scenario at hand.
type Capacity struct {
	// Today is the offered load of the scenario as configured, operations/s averaged over the
	// run; 0 when unknown.
	Today float64 `json:"today"`
	// Ceiling is the configured capacity, operations/s: over the nodes that take the clients'
	// commands, the lesser of each one's ingress request limiter's rate and its workers ÷ mean
	// service time, summed; 0 when unknown.
	Ceiling float64 `json:"ceiling"`
	// Source says where the ceiling comes from ("ingress request limiter 1000/s on db").
	Source string `json:"source,omitempty"`
}

// Sentence says where today's load sits against the ceiling: "today's load 508/s (the scenario
// as configured, averaged over the run) = 51 % of the configured ceiling 1000/s (ingress
// request limiter 1000/s on db)"; "" when either is unknown. simulate run prints it, and a
// run's report leads with it.
func (c Capacity) Sentence() string {
	if c.Today <= 0 || c.Ceiling <= 0 {
		return ""
	}
	return fmt.Sprintf("today's load %.0f/s (the scenario as configured, averaged over the run) = %.0f %% of the configured ceiling %.0f/s (%s)",
		c.Today, 100*c.Today/c.Ceiling, c.Ceiling, c.Source)
}

// CeilingLabel names the ceiling as a figure's key does: "configured ceiling 1000/s"; "" when it
// is unknown. Where it comes from (Source) is left to the report's answer and to the lines that
// have room for it: a sum over several nodes takes a paragraph.
func (c Capacity) CeilingLabel() string {
	if c.Ceiling <= 0 {
		return ""
	}
	return fmt.Sprintf("configured ceiling %.0f/s", c.Ceiling)
}
