package sim

import "example.org/m/internal/util"
import "example.org/m/wire"
