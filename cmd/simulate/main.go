// Command simulate runs overloadsim models on the virtual clock and reports what they measured.
//
// Usage:
//
//	simulate <command> [arguments] [options]
//
// Commands:
//
//	run mmc    run the built-in M/M/c queue and compare it with Erlang C
//	version    print the version
//
// Data goes to stdout, diagnostics to stderr. Exit status: 0 success, 1 runtime failure,
// 2 usage error.
package main

import (
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
