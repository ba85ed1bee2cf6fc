package plot

import "example.org/m/results"
import "example.org/m/server/mongos"
