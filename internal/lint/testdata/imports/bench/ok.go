package bench

import (
	"example.org/m/client"
	"example.org/m/record"
	"example.org/m/results"
	"example.org/m/scenarios"
	"example.org/m/server"
	"example.org/m/splitting"
)
