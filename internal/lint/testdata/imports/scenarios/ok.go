package scenarios

import (
	"example.org/m/analysis/splitting"
	"example.org/m/client"
	"example.org/m/record"
	"example.org/m/results"
	"example.org/m/server"
)
