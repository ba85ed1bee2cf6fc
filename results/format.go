package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// formatFloat is the one rule every float in every output file follows: six significant digits
// (strconv 'g'), and the empty string for NaN and ±Inf ("no value").
func formatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// formatSeconds writes a duration of ns nanoseconds in seconds, exactly: integer arithmetic, at
// most nine decimals, trailing zeros dropped ("1", "1.5", "0.000001").
func formatSeconds(ns int64) string {
	var b strings.Builder
	u := uint64(ns)
	if ns < 0 {
		b.WriteByte('-')
		u = uint64(-ns)
	}
	b.WriteString(strconv.FormatUint(u/1e9, 10))
	if frac := u % 1e9; frac != 0 {
		f := strconv.FormatUint(frac+1e9, 10)[1:] // nine digits with leading zeros
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(f, "0"))
	}
	return b.String()
}

// parseSeconds reads what formatSeconds writes (and any decimal number of seconds) back into
// nanoseconds, exactly when it has at most nine decimals.
func parseSeconds(s string) (int64, error) {
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, err
		}
		return int64(math.Round(f * 1e9)), nil
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 9 {
		frac = frac[:9]
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seconds %q: %w", s, err)
	}
	var f int64
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil {
			return 0, fmt.Errorf("seconds %q: %w", s, err)
		}
	}
	ns := w*1e9 + f
	if neg {
		ns = -ns
	}
	return ns, nil
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	simTimeType  = reflect.TypeFor[sim.Time]()
)

// marshalJSON encodes v (structs, pointers to them, slices, arrays, strings, bools, integers,
// floats, durations) as indented JSON with the package's fixed rules: struct fields in
// declaration order under their json tag names; floats by formatFloat, NaN and ±Inf as null;
// time.Duration and sim.Time as exact seconds; nil slices as []; nil pointers as null (left out
// with omitempty). No map ever reaches the output.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeValue(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func encodeValue(b *bytes.Buffer, v reflect.Value) error {
	switch t := v.Type(); {
	case t == durationType || t == simTimeType:
		b.WriteString(formatSeconds(v.Int()))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer: // an optional part of a record: null when absent
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeValue(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			if omitEmpty(f, v.Field(i)) {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			encodeString(b, name)
			b.WriteByte(':')
			if err := encodeValue(b, v.Field(i)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeValue(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.String:
		encodeString(b, v.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		if s := formatFloat(v.Float()); s != "" {
			b.WriteString(s)
		} else {
			b.WriteString("null")
		}
	default:
		return fmt.Errorf("results: cannot encode %s as JSON", v.Type())
	}
	return nil
}

func encodeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// omitEmpty reports whether field f, tagged omitempty, holds an empty slice or a zero number.
func omitEmpty(f reflect.StructField, v reflect.Value) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if slices.Contains(strings.Split(opts, ","), "omitzero") { // a record's optional part, by value
		return v.IsZero()
	}
	if !slices.Contains(strings.Split(opts, ","), "omitempty") {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil()
	case reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Uint64, reflect.Int, reflect.Int64:
		return v.IsZero()
	}
	return false
}

func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch tag {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return tag, true
}

// unmarshalJSON decodes what marshalJSON writes into the value v points to: null floats become
// NaN, seconds become durations again (exactly, to the nanosecond), unknown fields are ignored.
func unmarshalJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("results: unmarshalJSON needs a non-nil pointer")
	}
	return decodeValue(tree, rv.Elem())
}

func decodeValue(tree any, v reflect.Value) error {
	if t := v.Type(); t == durationType || t == simTimeType {
		n, ok := tree.(json.Number)
		if !ok {
			return fmt.Errorf("want seconds, got %T", tree)
		}
		ns, err := parseSeconds(n.String())
		if err != nil {
			return err
		}
		v.SetInt(ns)
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object for %s, got %T", v.Type(), tree)
		}
		for i := 0; i < v.NumField(); i++ {
			name, ok := jsonName(v.Type().Field(i))
			if !ok {
				continue
			}
			sub, present := obj[name]
			if !present {
				continue
			}
			if err := decodeValue(sub, v.Field(i)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	case reflect.Pointer:
		if tree == nil {
			v.SetZero()
			return nil
		}
		v.Set(reflect.New(v.Type().Elem()))
		return decodeValue(tree, v.Elem())
	case reflect.Slice, reflect.Array:
		arr, ok := tree.([]any)
		if !ok {
			if tree == nil && v.Kind() == reflect.Slice {
				v.SetZero()
				return nil
			}
			return fmt.Errorf("want an array, got %T", tree)
		}
		if v.Kind() == reflect.Slice {
			v.Set(reflect.MakeSlice(v.Type(), len(arr), len(arr)))
		} else if len(arr) != v.Len() {
			return fmt.Errorf("want %d elements, got %d", v.Len(), len(arr))
		}
		for i, e := range arr {
			if err := decodeValue(e, v.Index(i)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	case reflect.String:
		s, ok := tree.(string)
		if !ok {
			return fmt.Errorf("want a string, got %T", tree)
		}
		v.SetString(s)
	case reflect.Bool:
		bv, ok := tree.(bool)
		if !ok {
			return fmt.Errorf("want a bool, got %T", tree)
		}
		v.SetBool(bv)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := tree.(json.Number)
		if !ok {
			return fmt.Errorf("want an integer, got %T", tree)
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return err
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := tree.(json.Number)
		if !ok {
			return fmt.Errorf("want an unsigned integer, got %T", tree)
		}
		u, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil {
			return err
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		if tree == nil {
			v.SetFloat(math.NaN())
			return nil
		}
		n, ok := tree.(json.Number)
		if !ok {
			return fmt.Errorf("want a number or null, got %T", tree)
		}
		f, err := strconv.ParseFloat(n.String(), 64)
		if err != nil {
			return err
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("results: cannot decode JSON into %s", v.Type())
	}
	return nil
}
