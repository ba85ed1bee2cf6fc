package results

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/sim"
)

// testNames are the model's error classes and retry reasons, as a run's series names them.
var testNames = Names{
	ErrClasses:   []string{"overload", "timeout", "network", "serverSelection", "poolCleared", "server"},
	RetryReasons: []string{"KV_LOCKED", "KV_TEMPORARY_FAILURE"},
}

// fill sets every number in v (a struct, walked recursively) to a distinct value from next.
func fill(v reflect.Value, next *float64) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Histogram]() {
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), next)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 3, 3))
		for i := range 3 {
			fill(v.Index(i), next)
		}
	case reflect.Uint64:
		*next++
		v.SetUint(uint64(*next))
	case reflect.Int, reflect.Int64:
		if v.Type() == reflect.TypeFor[sim.Time]() {
			return
		}
		*next++
		v.SetInt(int64(*next))
	case reflect.Float64:
		*next++
		v.SetFloat(*next)
	}
}

// changed lists the fields (by name, recursively) whose values differ between a and b.
func changed(prefix string, a, b reflect.Value) []string {
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[Histogram]() {
			return nil
		}
		var out []string
		for i := range a.NumField() {
			out = append(out, changed(prefix+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
		}
		return out
	case reflect.Slice:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return []string{prefix}
		}
		return nil
	default:
		if !a.Equal(b) {
			return []string{prefix}
		}
		return nil
	}
}

// TestRecordsAddSubEveryField keeps Add and Sub complete: every counter of every record is
// changed by both, and nothing else is. A counter added to a record without its lines in Add
// and Sub fails here.
func TestRecordsAddSubEveryField(t *testing.T) {
	cases := []struct {
		name string
		rec  any
		// notCounters are the fields Add and Sub must leave alone (identity, span, gauges).
		// addOnly are gauges that Add folds in and Sub leaves.
		notCounters, addOnly []string
	}{
		{"GroupInterval", &GroupInterval{}, []string{"Start", "End", "Name"}, []string{"DriverQueue", "TokensMin", "TokensSum", "TokensN"}},
		{"ServerInterval", &ServerInterval{}, []string{"Start", "End", "Name", "Workers", "Connections", "Tokens", "Down"}, nil},
		{"ShardInterval", &ShardInterval{}, []string{"Start", "End", "Mongos", "Shard"}, []string{"Balance"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := reflect.ValueOf(c.rec).Elem()
			var next float64
			fill(v, &next)
			var counters []string
			for i := range v.NumField() {
				f := v.Type().Field(i).Name
				if !slices.Contains(c.notCounters, f) && !slices.Contains(c.addOnly, f) && v.Field(i).Type() != reflect.TypeFor[Histogram]() {
					counters = append(counters, f)
				}
			}
			orig := reflect.New(v.Type())
			orig.Elem().Set(v)
			cloneSlices(orig.Elem())

			added := reflect.New(v.Type())
			added.Elem().Set(v)
			cloneSlices(added.Elem())
			other := reflect.New(v.Type())
			other.Elem().Set(v)
			cloneSlices(other.Elem())
			if c.name == "ShardInterval" {
				other.Elem().FieldByName("Balance").SetFloat(-1) // so that Add's minimum moves
			}
			if c.name == "GroupInterval" {
				other.Elem().FieldByName("TokensMin").SetFloat(-1)
			}
			added.MethodByName("Add").Call([]reflect.Value{other})
			want := append(slices.Clone(counters), c.addOnly...)
			if got := changed("", orig.Elem(), added.Elem()); !slices.Equal(got, want) {
				t.Errorf("Add changed %q, want %q", got, want)
			}

			subbed := reflect.New(v.Type())
			subbed.Elem().Set(v)
			cloneSlices(subbed.Elem())
			earlier := reflect.New(v.Type())
			earlier.Elem().Set(v)
			cloneSlices(earlier.Elem())
			earlier.Elem().FieldByName("End").SetInt(int64(math.MaxInt32)) // Sub starts the interval here
			subbed.MethodByName("Sub").Call([]reflect.Value{earlier})
			want = append([]string{"Start"}, counters...)
			if got := changed("", orig.Elem(), subbed.Elem()); !slices.Equal(sortedFields(v.Type(), got), sortedFields(v.Type(), want)) {
				t.Errorf("Sub changed %q, want %q", got, want)
			}
		})
	}
}

// cloneSlices gives v's slice fields their own backing arrays.
func cloneSlices(v reflect.Value) {
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && !f.IsNil() {
			c := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
			reflect.Copy(c, f)
			f.Set(c)
		}
	}
}

// sortedFields orders field names by their position in t.
func sortedFields(t reflect.Type, names []string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b string) int {
		fa, _ := t.FieldByName(a)
		fb, _ := t.FieldByName(b)
		return fa.Index[0] - fb.Index[0]
	})
	return out
}
