package main

import (
	"example.org/m/scenarios"
	"example.org/m/tipping"
)
