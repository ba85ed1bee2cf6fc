package results

import (
	"example.org/m/client"
	"example.org/m/dist"
	"example.org/m/internal/parallel"
	"example.org/m/internal/stats"
	"example.org/m/sim"
)
