package scenarios

import (
	"errors"
	"reflect"
	"strings"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// A driver's retry policy option block (Driver.PolicyBlock, tagged yaml:",block") is one field
// in Go and one key in YAML per kind of block, as the retry registry names them: the key says
// which block the scenario gives, and retry makes it with its defaults and validates it.

// blockFields returns the YAML fields of the block field at index i: one per block key.
func blockFields(i int) []yamlstrict.Field {
	var out []yamlstrict.Field
	for _, key := range retry.BlockKeys() {
		out = append(out, yamlstrict.Field{Name: key, Index: []int{i}, Options: []string{"block"}})
	}
	return out
}

// givenBlock is a block given under path beside the one its driver holds: a driver holds one,
// and validation reports the others.
type givenBlock struct {
	path  string
	block retry.Block
}

// decodeBlock reads n, the block under key, into v, the driver's block field: a block with
// its defaults and the fields n gives. null leaves it as it is: the policy's defaults.
func (d *decoder) decodeBlock(n *yamlstrict.Node, v reflect.Value, path, key string) {
	if n.Kind == yamlstrict.NullKind {
		return
	}
	b := retry.NewBlock(key)
	before := len(d.Errors)
	d.DecodeStruct(n, reflect.ValueOf(b).Elem(), path)
	switch {
	case len(d.Errors) != before:
	case v.IsNil():
		v.Set(reflect.ValueOf(&b).Elem())
	default:
		d.extraBlocks = append(d.extraBlocks, givenBlock{path, b})
	}
}

// encodeBlock writes v, the driver's block field, under key: nothing when it holds no block
// or a block of another key.
func encodeBlock(v reflect.Value, key string) *yamlstrict.Node {
	b, _ := v.Interface().(retry.Block)
	if b == nil || retry.BlockKey(b) != key {
		return nil
	}
	return encode(reflect.ValueOf(b), yamlstrict.Field{})
}

// otherBlocks reports each block given in g's driver (at path p) beside the one it holds, as
// the driver's validation would with that block in its place: a block of another policy's,
// or its invalid options.
func (v *validator) otherBlocks(g *Group, p string) {
	for _, x := range v.d.extraBlocks {
		if yamlstrict.ParentPath(x.path) != p {
			continue
		}
		o := g.Driver.ClientOptions()
		o.Retry.Block = x.block
		key := retry.BlockKey(x.block)
		for _, part := range field.Parts(o.Validate(v.sc.Topology.Kind)) {
			var fe *field.Error
			if errors.As(part, &fe) && (fe.Field == key || strings.HasPrefix(fe.Field, key+".")) {
				v.bad(field.Join(p, fe.Field), fe.Value, fe.Rule)
			}
		}
	}
}
