package trace_test

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/record/trace"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// Trace the first client of each group of the spike scenario over 20 ms, two seconds into its
// spike (3× the server's rate limit), as `simulate run --scenario spike --trace spike.json
// --trace-clients 1 --trace-window 12s:12.02s` would: build the world, attach the writer, run,
// write. The file opens in ui.perfetto.dev; here it is summarised: most operations in the
// window are sleeping between retries, and every failed attempt is an overload rejection.
func ExampleWriter() {
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		panic(err)
	}
	if err := sc.Set("duration", "13s"); err != nil {
		panic(err)
	}
	loop := sim.NewLoop()
	world, err := bench.Build(sc, sc.Seed, loop, nil)
	if err != nil {
		panic(err)
	}
	from, to, err := trace.ParseWindow("12s:12.02s")
	if err != nil {
		panic(err)
	}
	w, err := trace.New(trace.Config{Clients: 1, From: from, To: to})
	if err != nil {
		panic(err)
	}
	w.Attach(world.Groups...)
	w.AddMetadata("seed", fmt.Sprint(world.Seed))
	loop.RunUntil(sim.Time(sc.Duration + 10*time.Second)) // let the window's operations finish
	// A command would now call w.WriteFile("spike.json").

	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		panic(err)
	}
	names := map[string]int{}
	lines := bufio.NewScanner(&buf)
	for lines.Scan() {
		line := lines.Text()
		switch {
		case strings.Contains(line, `"name":"process_name"`), strings.HasPrefix(line, `"otherData"`):
			fmt.Println(line)
		case strings.Contains(line, `"ph":"X"`), strings.Contains(line, `"ph":"i"`):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, `{"name":"`), `"`)
			names[name]++
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %d\n", k, names[k])
	}
	// Output:
	// {"name":"process_name","cat":"__metadata","ph":"M","ts":0.000,"pid":1,"tid":0,"args":{"name":"adaptive"}},
	// {"name":"process_name","cat":"__metadata","ph":"M","ts":0.000,"pid":2,"tid":0,"args":{"name":"plain"}},
	// "otherData":{"tool":"overloadsim results/trace","config":"clients=1 window=[12s,12.02s) maxEvents=200000","events":595,"dropped":0,"untracedOps":0,"seed":"1"}}
	// attempt: 30
	// backoff: 277
	// find: 225
	// insert: 36
	// overload: 27
}
