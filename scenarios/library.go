package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// library holds the named scenarios and the files they read.
//
//go:embed library/*.yaml library/*.csv
var library embed.FS

// DefaultName is the scenario simulate runs when none is named.
const DefaultName = "spike"

// Default returns the name of the scenario simulate runs when none is named: spike.
func Default() string { return DefaultName }

// Names returns the names of the library's scenarios, sorted.
func Names() []string {
	entries, _ := fs.Glob(library, "library/*.yaml")
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = strings.TrimSuffix(path.Base(e), ".yaml")
	}
	slices.Sort(out)
	return out
}

// Source returns the YAML text of the library scenario name, as written.
func Source(name string) ([]byte, error) {
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownScenario, name, strings.Join(Names(), ", "))
	}
	return library.ReadFile("library/" + name + ".yaml")
}

// Lookup reads and validates the library scenario name. Its messages name the file name.yaml;
// the files it names are read from the library.
func Lookup(name string) (*Scenario, error) {
	data, err := Source(name)
	if err != nil {
		return nil, err
	}
	return parseFS(library, "library/"+name+".yaml", name+".yaml", data)
}
