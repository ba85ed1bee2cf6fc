package record

import (
	"example.org/m/results"
	"example.org/m/scenarios"
	"example.org/m/server/mongos"
)
