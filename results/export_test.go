package results

// The fixtures the external tests of sweep folders (sweepfiles_test.go) build on.
var (
	FixtureHeader    = fixtureHeader
	FixtureSeries    = fixtureSeries
	DropFromManifest = dropFromManifest
	ReadDir          = readDir
)
