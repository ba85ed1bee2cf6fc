package scenarios

import _ "embed"

// docSource is this package's doc.go, whose package comment is the reference of the scenario
// format: every field, its default and its units. It is embedded so that 'simulate help
// scenario' prints the same text as go doc ./scenarios, in an installed binary without the
// source.
//
//go:embed doc.go
var docSource string

// DocSource returns the source of doc.go, the file that holds this package's documentation: the
// reference of the scenario format, in its package comment.
func DocSource() string { return docSource }
