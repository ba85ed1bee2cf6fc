// Package bad is countergen's test input of structs it must refuse.
package bad

// Flag has an untagged bool.
type Flag struct {
	N  uint64
	On bool
}

// Slice has an untagged slice.
type Slice struct{ Xs []uint64 }

// Comment has a field whose comment calls it a gauge.
type Comment struct {
	Queued int // gauge: commands waiting
}

// Tag has an unknown tag value.
type Tag struct {
	N uint64 `counter:"level"`
}

// Method already has an Add method.
type Method struct{ N uint64 }

// Add is hand-written.
func (m *Method) Add(o *Method) { m.N += o.N }

// NotStruct is not a struct.
type NotStruct uint64
