package scenarios_test

import (
	"fmt"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/scenarios"
)

// A scenario with a broken rule reports it at its line, with the field path and the value.
func ExampleParse() {
	_, err := scenarios.Parse("spike.yaml", []byte(`name: spike
duration: 45s
topology:
  nodes:
    - name: db
      workres: 8
clients:
  - name: app
    count: 10
    driver:
      retryPolicy: mongodb-2026-07
      maxAdaptiveRetries: -1
    workload:
      rate: {kind: spike, base: 250/s, peak: 1500/s, start: 10s, duration: 20s}
`))
	fmt.Println(err)
	// Output:
	// spike.yaml:6:7: topology.nodes[0]: workres: unknown field; did you mean workers?
	// spike.yaml:12: clients[0].driver.maxAdaptiveRetries: -1: must be ≥ 0 (0 disables overload retries) (retryPolicy mongodb-2026-07)
}

// Overrides obey the rules of the file; a run records what it ran, its streams with one family
// per numbered set (a stream per client, a link per client and server).
func ExampleScenario_Set() {
	sc, err := scenarios.Lookup(scenarios.Default())
	if err != nil {
		panic(err)
	}
	if err := sc.Set("clients[1].driver.adaptiveRetries", "true"); err != nil {
		panic(err)
	}
	fmt.Println(sc.Clients[1].Name, sc.Clients[1].Driver.AdaptiveRetries)
	fmt.Println(sc.Set("clients[0].count", "0"))
	run, err := bench.Run(sc, sc.Seed, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Header.Scenario, run.Header.Seed)
	for _, st := range run.Header.Streams {
		if st.Count > 0 { // a family: one stream per client
			fmt.Println(st.Name, st.Count)
		}
	}
	// Output:
	// plain true
	// --set clients[0].count=0: clients[0].count: 0: must be in [1, 1000000]
	// spike 1
	// link/adaptive/{0..9}/db 10
	// client/adaptive/{0..9} 10
	// link/plain/{0..9}/db 10
	// client/plain/{0..9} 10
}
