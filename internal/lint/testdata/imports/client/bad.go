package client

import (
	"example.org/m/client/retry"
	"example.org/m/scenarios"
	"example.org/m/server"
	"example.org/m/sim"
	"example.org/m/wire"
	"fmt"
)
