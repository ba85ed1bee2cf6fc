package serverstatus

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Write writes v, a Doc or a Params (or a pointer to one), as one line of relaxed Extended JSON
// followed by a newline, the bytes fixed by v alone:
//
//   - fields in the order of the struct, under their JSON names, then "ok": 1 as the server's
//     reply ends; a nil section, an omitempty field at its zero value and a zero time are left
//     out;
//   - integers as plain JSON integers;
//   - floats in the shortest form that reads back to the same float64, as JavaScript prints
//     them (1.7976931348623157e+308 for DBL_MAX); NaN, ±Inf and -0 as {"$numberDouble": …};
//   - dates as {"$date": "2026-01-01T00:00:01.000Z"} to the millisecond (years outside
//     1970–9999 as {"$date": {"$numberLong": "ms"}});
//   - metrics.commands in the order of the commands' names.
//
// What Write writes, ReadFile reads back to an equal value (times to the millisecond), provided
// v holds what ReadFile requires: a Doc names its host, counters are ≥ 0 and histogram ranges
// are LowerBounds in increasing order; a Params sets at least one parameter.
func Write(w io.Writer, v any) error {
	var rv reflect.Value
	switch x := v.(type) {
	case Doc, Params:
		rv = reflect.ValueOf(x)
	case *Doc:
		if x == nil {
			return fmt.Errorf("serverstatus: Write of a nil *Doc")
		}
		rv = reflect.ValueOf(*x)
	case *Params:
		if x == nil {
			return fmt.Errorf("serverstatus: Write of a nil *Params")
		}
		rv = reflect.ValueOf(*x)
	default:
		return fmt.Errorf("serverstatus: Write writes a Doc or a Params, not %T", v)
	}
	b := appendStruct(make([]byte, 0, 4096), rv, true)
	b = append(b, '\n')
	_, err := w.Write(b)
	return err
}

var timeType = reflect.TypeFor[time.Time]()

// appendStruct appends struct v as a JSON object; top adds "ok": 1.
func appendStruct(b []byte, v reflect.Value, top bool) []byte {
	b = append(b, '{')
	first := true
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "" || tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if isEmpty(fv, strings.Contains(opts, "omitempty")) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, name)
		b = append(b, ':')
		b = appendValue(b, fv)
	}
	if top {
		if !first {
			b = append(b, ',')
		}
		b = append(b, `"ok":1`...)
	}
	return append(b, '}')
}

// isEmpty reports whether field value v is left out: a nil pointer, slice or map always, a
// zero time always, and any zero value when the field is omitempty.
func isEmpty(v reflect.Value, omitempty bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		return v.IsNil() || v.Kind() != reflect.Pointer && omitempty && v.Len() == 0
	case reflect.Struct:
		if v.Type() == timeType {
			return v.Interface().(time.Time).IsZero()
		}
	}
	return omitempty && v.IsZero()
}

func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, "null"...)
		}
		return appendValue(b, v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			return appendDate(b, v.Interface().(time.Time))
		}
		return appendStruct(b, v, false)
	case reflect.Slice:
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, v.Index(i))
		}
		return append(b, ']')
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, v.MapIndex(reflect.ValueOf(k)))
		}
		return append(b, '}')
	case reflect.String:
		return appendString(b, v.String())
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Float64:
		return appendFloat(b, v.Float())
	}
	panic("serverstatus: Write has no encoding for " + v.Type().String())
}

// appendFloat appends f as relaxed Extended JSON writes a double: the shortest decimal that
// reads back to f, in JavaScript's notation (exponent below 1e-6 and from 1e21); the values
// JSON cannot hold as {"$numberDouble": …}.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `{"$numberDouble":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(b, `{"$numberDouble":"Infinity"}`...)
	case math.IsInf(f, -1):
		return append(b, `{"$numberDouble":"-Infinity"}`...)
	case f == 0 && math.Signbit(f):
		return append(b, `{"$numberDouble":"-0.0"}`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as JavaScript writes it.
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendDate appends t as a relaxed Extended JSON date.
func appendDate(b []byte, t time.Time) []byte {
	t = t.UTC()
	if y := t.Year(); y < 1970 || y > 9999 {
		b = append(b, `{"$date":{"$numberLong":"`...)
		b = strconv.AppendInt(b, t.UnixMilli(), 10)
		return append(b, `"}}`...)
	}
	b = append(b, `{"$date":"`...)
	b = t.Truncate(time.Millisecond).AppendFormat(b, "2006-01-02T15:04:05.000Z")
	return append(b, `"}`...)
}

// appendString appends s as a JSON string: quotes, backslashes and control characters escaped,
// bytes that are not UTF-8 replaced by U+FFFD (which reads back as itself).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
