package wire

import (
	"reflect"
	"testing"
)

// TestRecordsWasteNoWord: Request and Reply are the records a run holds most of (every attempt,
// monitor check and queued command), so their fields are ordered to leave less than a word of
// padding. A new field placed where it opens a gap fails here; put it beside fields of its size.
func TestRecordsWasteNoWord(t *testing.T) {
	for _, v := range []any{Request{}, Reply{}} {
		typ := reflect.TypeOf(v)
		var fields uintptr
		for i := range typ.NumField() {
			fields += typ.Field(i).Type.Size()
		}
		if pad := typ.Size() - fields; pad >= 8 {
			t.Errorf("%s: %d bytes of fields in %d: %d of padding, want under 8", typ.Name(), fields, typ.Size(), pad)
		}
	}
}
