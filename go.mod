module github.com/overloadsim/overloadsim

go 1.26

require (
	github.com/spf13/pflag v1.0.10
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/goccy/go-yaml v1.19.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/tools v0.36.0
)

require (
	golang.org/x/mod v0.27.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	golang.org/x/image v0.30.0
	golang.org/x/text v0.28.0 // indirect
	gonum.org/v1/plot v0.17.0
)
