package util

import "example.org/m/sim"
