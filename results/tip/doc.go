// Package tip holds what a tipping-point search's result is: the boundary along one parameter
// where runs flip from recovering after a trigger to sticking, its confidence interval, and the
// probes behind it (Result) — or, for a range whose ends lie on one side, that there is no flip
// in it and what P(stuck) is at its end nearest the other side (NoFlip) — written to and read
// from a result folder's tip.json (Write, Read) under the folder discipline of package results.
// A result leads with its conservative bound (Bound, Lead): the value up to which every run
// recovered, with the upper end of the exact 95 % interval for P(stuck) there, and the first
// value where runs stuck, k of n — what the runs did, before any estimate.
// The search itself is analysis/tipping; the engine that runs it over a scenario is the tip
// command's.
package tip
