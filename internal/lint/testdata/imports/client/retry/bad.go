package retry

import "example.org/m/ratelimiter"
import "example.org/m/record"
