package splitting

import "example.org/m/internal/parallel"
import "example.org/m/results"
