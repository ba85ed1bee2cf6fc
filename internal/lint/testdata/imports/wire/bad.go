package wire

import "example.org/m/sim"
import "example.org/m/ratelimiter"
import "example.org/m/newpkg"
