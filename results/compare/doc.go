// Package compare holds what a comparison of results is: runs or sweeps set side by side, point
// by point and metric by metric, each against the first with its difference and Welch's test
// (Compare, Comparison), written to and read from a result folder's compare.json and
// compare.csv (Write, Read, WriteCSV) under the folder discipline of package results.
package compare
