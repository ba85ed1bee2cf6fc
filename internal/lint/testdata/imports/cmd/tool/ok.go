package main

import (
	"example.org/m/analysis/tipping"
	"example.org/m/scenarios"
)
