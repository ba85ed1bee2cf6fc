package newpkg

import "strings"
import "example.org/m/sim"
