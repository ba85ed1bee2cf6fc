package retry

import (
	"reflect"
	"slices"
	"strings"
)

// Block is a policy's own option block: the options of a stack configured apart from the
// MongoClient's options (a gRPC method config, an AWS SDK's retry mode, Finagle's RetryBudget,
// ...). The policy's registry entry names the block's key in a scenario (grpc, aws, ...),
// creates it with its defaults (NewBlock) and has it validated; the block's type is the policy's
// (*GRPCOptions for grpc, *AWSOptions for aws-standard and aws-adaptive, ...). Its fields carry
// the yaml names a scenario spells them by, and a nested block (a pointer to a struct) given in
// a scenario starts from its type's SetDefaults, as the block itself does.
type Block interface {
	// validate reports every invalid option of the block given to the policy called policy,
	// through bad: the option's name within the block, its value and the rule it breaks.
	validate(policy string, bad func(name, value, rule string))
}

// blockKind is how a policy's option block is made: its key in a scenario and its type.
// Policies that share a block (aws-standard and aws-adaptive) have kinds of the same key and
// type, and a kind is known by either.
type blockKind struct {
	key string
	typ reflect.Type // a pointer type
	new func() Block // a block with its type's defaults
}

// blockOf returns the kind of the block of type *T, under key: a new block is a *T given
// T's SetDefaults.
func blockOf[T any, PT interface {
	*T
	Block
	SetDefaults()
}](key string) *blockKind {
	return &blockKind{key: key, typ: reflect.TypeFor[PT](), new: func() Block {
		b := PT(new(T))
		b.SetDefaults()
		return b
	}}
}

// own returns the policy's option block from o as a value of its type: New and Maker put the
// entry's block (the one given, or its defaults) in o.Block before they build the policy.
func own[T any, PT interface {
	*T
	Block
}](o Options) T {
	return *o.Block.(PT)
}

// BlockKeys returns the keys of the registered policies' option blocks, in registry order,
// each once: the fields a scenario's driver may hold a policy's block under.
func BlockKeys() []string {
	var keys []string
	for i := range registry {
		if k := registry[i].block; k != nil && !slices.Contains(keys, k.key) {
			keys = append(keys, k.key)
		}
	}
	return keys
}

// NewBlock returns a new option block of the kind a scenario gives under key, with its
// defaults, or nil when no policy's block has that key.
func NewBlock(key string) Block {
	if k := blockKindByKey(key); k != nil {
		return k.new()
	}
	return nil
}

// BlockKey returns the key a scenario gives b under, or "" for a nil block.
func BlockKey(b Block) string {
	if k := blockKindOf(b); k != nil {
		return k.key
	}
	return ""
}

func blockKindByKey(key string) *blockKind {
	for i := range registry {
		if k := registry[i].block; k != nil && k.key == key {
			return k
		}
	}
	return nil
}

// blockKindOf returns the kind of b, nil for a nil block. Every block is a registered type:
// Block's method is unexported.
func blockKindOf(b Block) *blockKind {
	t := reflect.TypeOf(b)
	for i := range registry {
		if k := registry[i].block; k != nil && k.typ == t {
			return k
		}
	}
	return nil
}

// validateBlock reports, through bad, an option block given to the policy of entry e: a block
// of another policy's, or each of its own options that is invalid.
func validateBlock(e *entry, b Block, bad func(name, value, rule string)) {
	k := blockKindOf(b)
	if e.block == nil || e.block.key != k.key {
		rule := "options of " + policiesOf(func(o *entry) bool { return o.block != nil && o.block.key == k.key }) +
			", not of this policy"
		if e.block != nil {
			rule += "; its options go in " + e.block.key
		}
		bad(k.key, "given", rule)
		return
	}
	b.validate(e.name, func(name, value, rule string) { bad(k.key+"."+name, value, rule) })
}

// policiesOf names the policies whose entries satisfy reads, the driver release presets as one.
func policiesOf(reads func(e *entry) bool) string {
	var names []string
	releases := false
	for i := range registry {
		switch {
		case !reads(&registry[i]):
		case Release(registry[i].name):
			releases = true
		default:
			names = append(names, registry[i].name)
		}
	}
	s := strings.Join(names, ", ")
	if releases {
		s += " and the driver release presets (go-*, node-*)"
	}
	return s
}
