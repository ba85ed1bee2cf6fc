// Package results records what a run measured — offered load, attempts, goodput, rejections,
// failures by class, latency histograms, wasted work, recovery times; DESIGN §6 defines each —
// per interval, per client group and per server, and writes it as CSV and JSON.
//
// Units: rates per second of virtual time, latencies in seconds. Invariant: output bytes depend
// only on the scenario and seed (no map order, fixed float formatting, virtual timestamps only).
package results
