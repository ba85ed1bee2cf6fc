package bench

import (
	"example.org/m/analysis/splitting"
	"example.org/m/client"
	"example.org/m/record"
	"example.org/m/results"
	"example.org/m/scenarios"
	"example.org/m/server"
)
