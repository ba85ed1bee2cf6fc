package scenarios

import "example.org/m/record"
