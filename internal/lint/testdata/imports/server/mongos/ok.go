package mongos

import (
	"example.org/m/field"
	"example.org/m/internal/rtt"
	"example.org/m/ratelimiter"
	"example.org/m/server"
	"example.org/m/sim"
	"example.org/m/wire"
)
