module overloadsim

go 1.26

require (
	github.com/spf13/pflag v1.0.10
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/goccy/go-yaml v1.19.2
)
