package dist

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		gloss string
		in    string
		want  string // canonical String
	}{
		// Each family in canonical form reads back unchanged.
		{"const", "const(1ms)", "const(1ms)"},
		{"exp", "exp(5ms)", "exp(5ms)"},
		{"lognormal", "lognormal(3ms, 0.5)", "lognormal(3ms, 0.5)"},
		{"gamma", "gamma(5ms, 2)", "gamma(5ms, 2)"},
		{"uniform", "uniform(1ms, 3ms)", "uniform(1ms, 3ms)"},
		{"empirical", "empirical(1ms, 2ms, 5ms)", "empirical(1ms, 2ms, 5ms)"},

		// Shorthands and spellings that normalise.
		{"bare duration is const", "5ms", "const(5ms)"},
		{"bare zero is const(0s)", "0", "const(0s)"},
		{"bare duration with blanks", "  250us \t", "const(250µs)"},
		{"blanks everywhere", " exp ( 5ms ) ", "exp(5ms)"},
		{"no blank after comma", "lognormal(3ms,0.50)", "lognormal(3ms, 0.5)"},
		{"compound duration", "exp(1h2m3.5s)", "exp(1h2m3.5s)"},
		{"fractional milliseconds", "exp(1.5ms)", "exp(1.5ms)"},
		{"leading plus", "const(+2s)", "const(2s)"},
		{"sigma zero", "lognormal(1s, 0)", "lognormal(1s, 0)"},
		{"sigma minus zero", "lognormal(1s, -0)", "lognormal(1s, 0)"},
		{"sigma exponent form", "lognormal(1s, 1e-1)", "lognormal(1s, 0.1)"},
		{"sigma at MaxSigma", "lognormal(1s, 10)", "lognormal(1s, 10)"},
		{"gamma shape below 1", "gamma(5ms, 0.5)", "gamma(5ms, 0.5)"},
		{"gamma shape 1 stays gamma", "gamma(5ms, 1)", "gamma(5ms, 1)"},
		{"gamma shape trailing zeros", "gamma( 2.5ms ,2.50)", "gamma(2.5ms, 2.5)"},
		{"gamma shape exponent form", "gamma(1s, 1e2)", "gamma(1s, 100)"},
		{"gamma shape at MinShape", "gamma(1s, 0.01)", "gamma(1s, 0.01)"},
		{"gamma shape at MaxShape", "gamma(1s, 1000000)", "gamma(1s, 1e+06)"},
		{"gamma shape in full precision", "gamma(1ms, 0.1234567890123)", "gamma(1ms, 0.1234567890123)"},
		{"degenerate uniform", "uniform(2ms, 2ms)", "uniform(2ms, 2ms)"},
		{"uniform from zero", "uniform(0s, 1ns)", "uniform(0s, 1ns)"},
		{"empirical values sorted", "empirical(5ms, 1ms, 2ms)", "empirical(1ms, 2ms, 5ms)"},
		{"empirical repeats kept", "empirical(2ms,1ms,2ms)", "empirical(1ms, 2ms, 2ms)"},
		{"empirical single value", "empirical(7ms)", "empirical(7ms)"},
		{"const at MaxDuration", "const(1281023h53m38.427387904s)", "const(1281023h53m38.427387904s)"},
	}
	for _, tt := range tests {
		d, err := Parse(tt.in)
		if err != nil {
			t.Errorf("%s: Parse(%q) error: %v", tt.gloss, tt.in, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("%s: Parse(%q).String() = %q, want %q", tt.gloss, tt.in, got, tt.want)
		}
		again, err := Parse(d.String())
		if err != nil || again.String() != d.String() {
			t.Errorf("%s: Parse(%q) = %v, %v; want %q again", tt.gloss, d.String(), again, err, d.String())
		}
	}
}

// invalidTexts pairs bad texts with their exact error and the sentinel it matches.
var invalidTexts = []struct {
	gloss string
	in    string
	kind  error
	want  string
}{
	// Shape of the text.
	{"empty", "", ErrSyntax, `dist: "": empty; want a duration such as 5ms or one of const, empirical, exp, gamma, lognormal, uniform`},
	{"only blanks", " \t", ErrSyntax, `dist: " \t": empty; want a duration such as 5ms or one of const, empirical, exp, gamma, lognormal, uniform`},
	{"name without parentheses", "exp", ErrSyntax, `dist: "exp": missing parameters; want exp(mean)`},
	{"empirical without parentheses", "empirical", ErrSyntax, `dist: "empirical": missing parameters; want empirical(v1, v2, …) or empirical(file)`},
	{"unclosed", "exp(5ms", ErrSyntax, `dist: "exp(5ms": missing ")"`},
	{"text after )", "exp(5ms) x", ErrSyntax, `dist: "exp(5ms) x": unexpected "x" after ")"`},
	{"two distributions", "const(1ms) const(2ms)", ErrSyntax, `dist: "const(1ms) const(2ms)": unexpected "const(2ms)" after ")"`},
	{"nested parentheses", "const((1ms))", ErrSyntax, `dist: "const((1ms))": unexpected "(" inside parentheses`},
	{"no name", "(5ms)", ErrSyntax, `dist: "(5ms)": missing distribution name before "("; known: const, empirical, exp, gamma, lognormal, uniform`},
	{"number without unit", "5", ErrSyntax, `dist: "5": time: missing unit in duration "5"`},

	// Names.
	{"unknown name", "weibull(1ms, 2)", ErrUnknown, `dist: "weibull(1ms, 2)": unknown distribution "weibull"; known: const, empirical, exp, gamma, lognormal, uniform`},
	{"names are lower-case", "Exp(5ms)", ErrUnknown, `dist: "Exp(5ms)": unknown distribution "Exp"; known: const, empirical, exp, gamma, lognormal, uniform`},
	{"bare word", "fast", ErrUnknown, `dist: "fast": unknown distribution "fast"; known: const, empirical, exp, gamma, lognormal, uniform, or a bare duration such as 5ms`},
	{"invalid UTF-8", "\xff", ErrUnknown, `dist: "\xff": unknown distribution "\xff"; known: const, empirical, exp, gamma, lognormal, uniform, or a bare duration such as 5ms`},

	// Arity.
	{"lognormal needs sigma", "lognormal(3ms)", ErrInvalid, `dist: "lognormal(3ms)": lognormal takes 2 parameters (mean, sigma), got 1`},
	{"lognormal with three", "lognormal(3ms, 0.5, 1)", ErrInvalid, `dist: "lognormal(3ms, 0.5, 1)": lognormal takes 2 parameters (mean, sigma), got 3`},
	{"exp with none", "exp()", ErrInvalid, `dist: "exp()": exp takes 1 parameter (mean), got 0`},
	{"exp with two", "exp(5ms, 1ms)", ErrInvalid, `dist: "exp(5ms, 1ms)": exp takes 1 parameter (mean), got 2`},
	{"gamma needs shape", "gamma(5ms)", ErrInvalid, `dist: "gamma(5ms)": gamma takes 2 parameters (mean, shape), got 1`},
	{"gamma with three", "gamma(5ms, 2, 1)", ErrInvalid, `dist: "gamma(5ms, 2, 1)": gamma takes 2 parameters (mean, shape), got 3`},
	{"gamma without parentheses", "gamma", ErrSyntax, `dist: "gamma": missing parameters; want gamma(mean, shape)`},
	{"uniform with one", "uniform(1ms)", ErrInvalid, `dist: "uniform(1ms)": uniform takes 2 parameters (lo, hi), got 1`},
	{"empirical with none", "empirical( )", ErrInvalid, `dist: "empirical( )": empirical takes at least 1 value or a file name, got 0`},

	// Parameter syntax.
	{"mean without unit", "exp(5)", ErrSyntax, `dist: "exp(5)": mean: time: missing unit in duration "5"`},
	{"mean out of int64 range", "exp(9999999h)", ErrSyntax, `dist: "exp(9999999h)": mean: time: invalid duration "9999999h"`},
	{"empty hi", "uniform(1ms, )", ErrSyntax, `dist: "uniform(1ms, )": hi: missing value`},
	{"empty sigma", "lognormal(3ms, )", ErrSyntax, `dist: "lognormal(3ms, )": sigma: missing value`},
	{"sigma not a number", "lognormal(3ms, x)", ErrSyntax, `dist: "lognormal(3ms, x)": sigma "x": not a number`},
	{"empty shape", "gamma(5ms, )", ErrSyntax, `dist: "gamma(5ms, )": shape: missing value`},
	{"shape not a number", "gamma(5ms, two)", ErrSyntax, `dist: "gamma(5ms, two)": shape "two": not a number`},
	{"gamma mean without unit", "gamma(5, 2)", ErrSyntax, `dist: "gamma(5, 2)": mean: time: missing unit in duration "5"`},
	{"empty empirical value", "empirical(1ms,,2ms)", ErrSyntax, `dist: "empirical(1ms,,2ms)": value #2: missing value`},
	{"file among values", "empirical(1ms, rtt.csv)", ErrSyntax, `dist: "empirical(1ms, rtt.csv)": value #2: time: invalid duration "rtt.csv"`},

	// Parameter rules.
	{"negative exp mean", "exp(-5ms)", ErrInvalid, `dist: "exp(-5ms)": mean -5ms: must be > 0`},
	{"zero exp mean", "exp(0s)", ErrInvalid, `dist: "exp(0s)": mean 0s: must be > 0`},
	{"negative bare duration", "-5ms", ErrInvalid, `dist: "-5ms": duration -5ms: must be ≥ 0`},
	{"negative const", "const(-1ms)", ErrInvalid, `dist: "const(-1ms)": duration -1ms: must be ≥ 0`},
	{"const beyond MaxDuration", "const(2562047h)", ErrInvalid, `dist: "const(2562047h)": duration 2562047h0m0s: must be ≤ 1281023h53m38.427387904s (MaxDuration)`},
	{"negative lognormal mean", "lognormal(-3ms, 0.5)", ErrInvalid, `dist: "lognormal(-3ms, 0.5)": mean -3ms: must be > 0`},
	{"NaN sigma", "lognormal(3ms, NaN)", ErrInvalid, `dist: "lognormal(3ms, NaN)": sigma NaN: must be a finite number in [0, 10]`},
	{"Inf sigma", "lognormal(3ms, Inf)", ErrInvalid, `dist: "lognormal(3ms, Inf)": sigma +Inf: must be a finite number in [0, 10]`},
	{"sigma overflowing float", "lognormal(3ms, 1e400)", ErrInvalid, `dist: "lognormal(3ms, 1e400)": sigma 1e400: must be a finite number in [0, 10]`},
	{"negative sigma", "lognormal(3ms, -0.5)", ErrInvalid, `dist: "lognormal(3ms, -0.5)": sigma -0.5: must be a finite number in [0, 10]`},
	{"sigma above MaxSigma", "lognormal(3ms, 11)", ErrInvalid, `dist: "lognormal(3ms, 11)": sigma 11: must be a finite number in [0, 10]`},
	{"zero gamma mean", "gamma(0s, 2)", ErrInvalid, `dist: "gamma(0s, 2)": mean 0s: must be > 0`},
	{"negative gamma mean", "gamma(-5ms, 2)", ErrInvalid, `dist: "gamma(-5ms, 2)": mean -5ms: must be > 0`},
	{"zero shape", "gamma(5ms, 0)", ErrInvalid, `dist: "gamma(5ms, 0)": shape 0: must be a finite number in [0.01, 1e+06]`},
	{"negative shape", "gamma(5ms, -2)", ErrInvalid, `dist: "gamma(5ms, -2)": shape -2: must be a finite number in [0.01, 1e+06]`},
	{"shape below MinShape", "gamma(5ms, 0.009)", ErrInvalid, `dist: "gamma(5ms, 0.009)": shape 0.009: must be a finite number in [0.01, 1e+06]`},
	{"shape above MaxShape", "gamma(5ms, 1000001)", ErrInvalid, `dist: "gamma(5ms, 1000001)": shape 1.000001e+06: must be a finite number in [0.01, 1e+06]`},
	{"NaN shape", "gamma(5ms, NaN)", ErrInvalid, `dist: "gamma(5ms, NaN)": shape NaN: must be a finite number in [0.01, 1e+06]`},
	{"Inf shape", "gamma(5ms, +Inf)", ErrInvalid, `dist: "gamma(5ms, +Inf)": shape +Inf: must be a finite number in [0.01, 1e+06]`},
	{"shape overflowing float", "gamma(5ms, 1e400)", ErrInvalid, `dist: "gamma(5ms, 1e400)": shape 1e400: must be a finite number in [0.01, 1e+06]`},
	{"lo above hi", "uniform(3ms, 1ms)", ErrInvalid, `dist: "uniform(3ms, 1ms)": hi 1ms: must be ≥ lo 3ms`},
	{"negative lo", "uniform(-1ms, 1ms)", ErrInvalid, `dist: "uniform(-1ms, 1ms)": lo -1ms: must be ≥ 0`},
	{"negative empirical value", "empirical(1ms, -2ms)", ErrInvalid, `dist: "empirical(1ms, -2ms)": value #2 -2ms: must be ≥ 0`},
	{"file without loader", "empirical(rtt.csv)", ErrInvalid, `dist: "empirical(rtt.csv)": file "rtt.csv": Parse reads no files; use ParseWith with a loader`},
}

func TestParseInvalid(t *testing.T) {
	sentinels := []error{ErrSyntax, ErrUnknown, ErrInvalid}
	for _, tt := range invalidTexts {
		d, err := Parse(tt.in)
		if err == nil {
			t.Errorf("%s: Parse(%q) = %v, want error %q", tt.gloss, tt.in, d, tt.want)
			continue
		}
		if d != nil {
			t.Errorf("%s: Parse(%q) returned %v along with its error", tt.gloss, tt.in, d)
		}
		if err.Error() != tt.want {
			t.Errorf("%s: Parse(%q) error\n got %s\nwant %s", tt.gloss, tt.in, err, tt.want)
		}
		// The field error's value is the text as given, so that a caller can re-attribute it.
		if fe := (*field.Error)(nil); !errors.As(err, &fe) || fe.Value != strconv.Quote(tt.in) || tt.want != "dist: "+fe.Error() {
			t.Errorf("%s: Parse(%q) error %v holds no *field.Error for the text", tt.gloss, tt.in, err)
		}
		for _, s := range sentinels {
			if errors.Is(err, s) != (s == tt.kind) {
				t.Errorf("%s: errors.Is(Parse(%q), %v) = %v, want %v", tt.gloss, tt.in, s, errors.Is(err, s), s == tt.kind)
			}
		}
	}
}

// TestParseWrapsTimeError: a bad duration keeps time.ParseDuration's error in the chain.
func TestParseWrapsTimeError(t *testing.T) {
	_, err := Parse("exp(5)")
	_, want := time.ParseDuration("5")
	var target interface{ Unwrap() []error }
	if !errors.As(err, &target) || len(target.Unwrap()) != 2 || target.Unwrap()[1].Error() != want.Error() {
		t.Fatalf("Parse(%q) = %v, want it to wrap %v", "exp(5)", err, want)
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		gloss string
		make  func() (Duration, error)
		want  string
	}{
		{"negative exp mean", func() (Duration, error) { return Exp(-5 * time.Millisecond) }, "dist: exp: mean -5ms: must be > 0"},
		{"exp mean beyond MaxDuration", func() (Duration, error) { return Exp(MaxDuration + 1) }, "dist: exp: mean 1281023h53m38.427387905s: must be ≤ 1281023h53m38.427387904s (MaxDuration)"},
		{"zero lognormal mean", func() (Duration, error) { return LogNormal(0, 1) }, "dist: lognormal: mean 0s: must be > 0"},
		{"NaN sigma", func() (Duration, error) { return LogNormal(time.Second, nan()) }, "dist: lognormal: sigma NaN: must be a finite number in [0, 10]"},
		{"zero gamma mean", func() (Duration, error) { return Gamma(0, 2) }, "dist: gamma: mean 0s: must be > 0"},
		{"NaN shape", func() (Duration, error) { return Gamma(time.Second, nan()) }, "dist: gamma: shape NaN: must be a finite number in [0.01, 1e+06]"},
		{"shape below MinShape", func() (Duration, error) { return Gamma(time.Second, MinShape/2) }, "dist: gamma: shape 0.005: must be a finite number in [0.01, 1e+06]"},
		{"lo above hi", func() (Duration, error) { return Uniform(2, 1) }, "dist: uniform: hi 1ns: must be ≥ lo 2ns"},
		{"empty empirical", func() (Duration, error) { return Empirical(nil) }, "dist: empirical: no values: empirical needs at least 1"},
		{"negative empirical value", func() (Duration, error) { return Empirical([]time.Duration{1, -1}) }, "dist: empirical: value #2 -1ns: must be ≥ 0"},
	}
	for _, tt := range tests {
		d, err := tt.make()
		if err == nil || err.Error() != tt.want || d != nil {
			t.Errorf("%s: got %v, %v; want nil, %s", tt.gloss, d, err, tt.want)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v does not match ErrInvalid", tt.gloss, err)
		}
	}
}

func nan() float64 { v, _ := strconv.ParseFloat("NaN", 64); return v }

// TestConstClamps: Const has no error result, so it clamps like Sample does.
func TestConstClamps(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{-time.Second, 0}, {0, 0}, {time.Second, time.Second}, {MaxDuration + 1, MaxDuration},
	} {
		if got := Const(tt.in).Mean(); got != tt.want {
			t.Errorf("Const(%v).Mean() = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// fakeFiles is a loader over an in-memory directory, standing in for the scenarios package.
func fakeFiles(files map[string]string) func(string) ([]time.Duration, error) {
	return func(name string) ([]time.Duration, error) {
		text, ok := files[name]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return ReadEmpiricalCSV(strings.NewReader(text))
	}
}

func TestParseWithFile(t *testing.T) {
	load := fakeFiles(map[string]string{
		"rtt.csv":        "latency_ms\n1\n2\n5\n",
		"data/x y.csv":   "3ms\n",
		"empty.csv":      "# nothing\n",
		"negative.csv":   "1ms\n-2ms\n",
		"huge.txt":       "1ms\n",
		"not-values.csv": "a\nb\n",
	})
	d, err := ParseWith(" empirical( rtt.csv ) ", load)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.String(), "empirical(rtt.csv)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := d.Mean(), 2666667*time.Nanosecond; got != want {
		t.Errorf("Mean() = %v, want %v (mean of 1, 2, 5 ms)", got, want)
	}
	again, err := ParseWith(d.String(), load)
	if err != nil || again.String() != d.String() {
		t.Errorf("ParseWith(%q) = %v, %v; want the same String", d.String(), again, err)
	}
	if d, err := ParseWith("empirical(data/x y.csv)", load); err != nil || d.String() != "empirical(data/x y.csv)" {
		t.Errorf("file name with a blank: got %v, %v", d, err)
	}
	// Inline values still work with a loader, and never reach it.
	if d, err := ParseWith("empirical(2ms, 1ms)", load); err != nil || d.String() != "empirical(1ms, 2ms)" {
		t.Errorf("inline values with a loader: got %v, %v", d, err)
	}

	bad := []struct {
		in   string
		want string
	}{
		{"empirical(missing.csv)", `dist: "empirical(missing.csv)": file "missing.csv": open missing.csv: file does not exist`},
		{"empirical(empty.csv)", `dist: "empirical(empty.csv)": file "empty.csv": dist: csv: no values: must hold at least one value`},
		{"empirical(negative.csv)", `dist: "empirical(negative.csv)": file "negative.csv": dist: csv line 2: "-2ms": must be ≥ 0`},
		{"empirical(not-values.csv)", `dist: "empirical(not-values.csv)": file "not-values.csv": dist: csv line 2: "b": must be a duration such as 3ms or a number of milliseconds`},
	}
	for _, tt := range bad {
		_, err := ParseWith(tt.in, load)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseWith(%q) error\n got %v\nwant %s", tt.in, err, tt.want)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseWith(%q) = %v, does not match ErrInvalid", tt.in, err)
		}
	}
	if _, err := ParseWith("empirical(missing.csv)", load); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loader error not wrapped: %v does not match fs.ErrNotExist", err)
	}

	// A loader that returns bad values directly (not through ReadEmpiricalCSV) is checked too.
	direct := func(string) ([]time.Duration, error) { return []time.Duration{time.Millisecond, -1}, nil }
	if _, err := ParseWith("empirical(x)", direct); err == nil || err.Error() != `dist: "empirical(x)": file "x": value #2 -1ns: must be ≥ 0` {
		t.Errorf("bad loader values: got %v", err)
	}
	none := func(string) ([]time.Duration, error) { return nil, nil }
	if _, err := ParseWith("empirical(x)", none); err == nil || err.Error() != `dist: "empirical(x)": file "x": no values: empirical needs at least 1` {
		t.Errorf("empty loader values: got %v", err)
	}
}

// TestEmpiricalCopies: the caller may reuse its slice after Empirical returns.
func TestEmpiricalCopies(t *testing.T) {
	vs := []time.Duration{3, 1, 2}
	d, err := Empirical(vs)
	if err != nil {
		t.Fatal(err)
	}
	vs[0], vs[1], vs[2] = 100, 100, 100
	if got, want := d.String(), "empirical(1ns, 2ns, 3ns)"; got != want {
		t.Errorf("after reusing the slice, String() = %q, want %q", got, want)
	}
	if vs[0] != 100 {
		t.Errorf("Empirical sorted the caller's slice")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"const(1ms)", "exp(5ms)", "lognormal(3ms, 0.5)", "uniform(1ms, 3ms)", "empirical(1ms, 2ms, 5ms)",
		"5ms", " exp ( 5ms ) ", "empirical(rtt.csv)", "empirical(missing.csv)", "lognormal(1s, 1e-1)",
		"gamma(5ms, 2)", "gamma(5ms, 0.5)", "gamma(1ns, 0.01)", "gamma(1281023h53m38.427387904s, 1e6)",
		"uniform(0s, 1281023h53m38.427387904s)", "exp(1281023h53m38.427387904s)", "lognormal(1ns, 10)",
	} {
		f.Add(s)
	}
	for _, tt := range invalidTexts {
		f.Add(tt.in)
	}
	load := fakeFiles(map[string]string{"rtt.csv": "1ms\n3ms\n"})
	r := newTestStream("fuzz")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseWith(s, load)
		if err != nil {
			if d != nil {
				t.Fatalf("ParseWith(%q) returned %v with error %v", s, d, err)
			}
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrUnknown) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseWith(%q) error %v matches no sentinel", s, err)
			}
			// The message shows the quoted text as field.Error shows every value: cut to
			// field.MaxValueRunes with its length when it is longer.
			if prefix := "dist: " + field.Show(strconv.Quote(s)) + ": "; !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("ParseWith(%q) error %q does not start with %q", s, err, prefix)
			}
			return
		}
		text := d.String()
		again, err := ParseWith(text, load)
		if err != nil {
			t.Fatalf("ParseWith(%q).String() = %q, which does not parse: %v", s, text, err)
		}
		if again.String() != text {
			t.Fatalf("round trip of %q: %q became %q", s, text, again.String())
		}
		if plain, err := Parse(s); err == nil && plain.String() != text {
			t.Fatalf("Parse(%q) = %q but ParseWith gives %q", s, plain.String(), text)
		}
		if m := d.Mean(); m < 0 || m > MaxDuration {
			t.Fatalf("%s: Mean() = %v out of [0, MaxDuration]", text, m)
		}
		if m2 := d.SecondMoment(); !(m2 >= 0) {
			t.Fatalf("%s: SecondMoment() = %v, want >= 0", text, m2)
		}
		for range 3 {
			if v := d.Sample(r); v < 0 || v > MaxDuration {
				t.Fatalf("%s: Sample() = %v out of [0, MaxDuration]", text, v)
			}
		}
	})
}
