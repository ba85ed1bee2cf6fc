package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// labelFlag adds --label PATH=NAME (repeatable) to a command's flags: the short name of a
// parameter in the figures' axis titles, panel titles and legends, over the automatic one
// (chart.ParamLabel: "web rate", "cut length", "CPU left"). It returns the function that reads
// the names given, a map from path to name, or a usage error naming the --label that is
// malformed. Labels are not recorded with a result: give them again to 'simulate plot' (the
// automatic names need nothing, being read from the scenario the result records).
//
// A command adds it in one line, labels := labelFlag(fs), and reads it with labels().
func labelFlag(fs *pflag.FlagSet) func() (map[string]string, error) {
	given := fs.StringArray("label", nil, "name a parameter in the figures: PATH=NAME, e.g. 'clients[0].workload.rate=web rate' (repeatable; default: a short name from the scenario)")
	return func() (map[string]string, error) {
		return parseLabels(*given)
	}
}

// parseLabels reads --label values, PATH=NAME each: a path given twice, or a value without
// '=' or with an empty path or name, is a usage error.
func parseLabels(given []string) (map[string]string, error) {
	if len(given) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, g := range given {
		path, name, ok := strings.Cut(g, "=")
		path, name = strings.TrimSpace(path), strings.TrimSpace(name)
		switch {
		case !ok || path == "" || name == "":
			return nil, usageErrorf("--label %q: want PATH=NAME, e.g. 'clients[0].workload.rate=web rate'", g)
		case out[path] != "":
			return nil, usageErrorf("--label %q: %s is already named %q; name each path once", g, path, out[path])
		}
		out[path] = name
	}
	return out, nil
}
