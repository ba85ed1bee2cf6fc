package results

import _ "embed"

// docSource is this package's doc.go, whose package comment says how each metric is measured
// and the rule that decides a trigger's outcome (# Recovery). It is embedded so that 'simulate
// help metrics' prints that rule as go doc ./results does, in an installed binary without the
// source.
//
//go:embed doc.go
var docSource string

// DocSource returns the source of doc.go, the file that holds this package's documentation, in
// its package comment.
func DocSource() string { return docSource }
