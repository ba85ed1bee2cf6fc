package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/internal/mmc"
	"github.com/overloadsim/overloadsim/internal/queueing"
)

var mmcCommand = command{
	summary: "run the built-in M/M/c queue and compare it with Erlang C",
	usage: `Usage: simulate mmc [options]

Runs an M/M/c queue (Poisson arrivals, c exponential servers, one FIFO queue) on the
simulation kernel and prints its measurements next to Erlang C, with the kernel's speed. The
simulated mean wait Wq comes with its 95 % confidence interval from the run, by the method of
batch means (20 batches of equal length after the warm-up, Student t), and a line says whether
Erlang C's exact Wq lies inside it.

Examples:
  simulate mmc
  simulate mmc --lambda 380 --mu 100 --c 4 --horizon 10m --seed 7`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		var cfg mmc.Config
		fs.Float64Var(&cfg.Lambda, "lambda", 320, "arrival rate λ, customers/s")
		fs.Float64Var(&cfg.Mu, "mu", 100, "service rate μ of one server, customers/s")
		fs.IntVar(&cfg.C, "c", 4, "number of servers")
		fs.DurationVar(&cfg.Horizon, "horizon", 10*time.Minute, "virtual run length")
		fs.DurationVar(&cfg.Warmup, "warmup", 30*time.Second, "ignore arrivals before this virtual time")
		fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
		maxTime := fs.Duration("max-time", experiment.DefaultMaxTime, "refuse a run estimated to take longer than this")
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) != 0 {
				return usageErrorf("mmc takes no arguments, got %q", args)
			}
			if err := cfg.Validate(); err != nil {
				return errUsage{err}
			}
			// Three events per customer (arrival, start, end) at the bare queue's pace.
			events := 3 * cfg.Lambda * cfg.Horizon.Seconds()
			if secs := events / mmcEventsPerSecond; secs > maxTime.Seconds() {
				return usageErrorf("M/M/%d over --horizon %s: about %.2g events, %s: more than --max-time %s; raise it to run this anyway",
					cfg.C, cfg.Horizon, events, experiment.HumanDuration(secs), *maxTime)
			}
			return runMMC(cfg, stdout)
		}
	},
}

// mmcEventsPerSecond is about what the bare M/M/c queue handles per second of one core.
const mmcEventsPerSecond = 5e6

func runMMC(cfg mmc.Config, stdout io.Writer) error {
	start := time.Now()
	r, err := mmc.Run(cfg)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	a := cfg.Lambda / cfg.Mu
	rho := a / float64(cfg.C)
	fmt.Fprintf(stdout, "M/M/%d  λ=%g/s  μ=%g/s  ρ=%.4f  horizon=%v  warmup=%v  seed=%d\n",
		cfg.C, cfg.Lambda, cfg.Mu, rho, cfg.Horizon, cfg.Warmup, cfg.Seed)
	// The simulated column is a value and, for the mean wait, its 95 % half-width.
	row := func(name string, sim float64, pm, theory string) {
		fmt.Fprintf(stdout, "%-24s %14.6f %-11s %14s\n", name, sim, pm, theory)
	}
	mean, half := r.WaitCI(mmcLevel)
	pm := "± n/a"
	if !math.IsNaN(half) {
		pm = fmt.Sprintf("± %.6f", half)
	}
	fmt.Fprintf(stdout, "%-24s %14s %-11s %14s\n", "", "simulated", "± 95 %", "Erlang C")
	if rho < 1 {
		wq := queueing.MMcWait(cfg.Lambda, cfg.Mu, cfg.C)
		row("mean wait Wq (s)", r.MeanWait, pm, fmt.Sprintf("%.6f", wq))
		fmt.Fprintf(stdout, "  %s\n", mmcCoverage(mean, half, wq))
		row("P(wait)", float64(r.Waited)/float64(max(r.Arrivals, 1)), "", fmt.Sprintf("%.6f", queueing.ErlangC(cfg.C, a)))
	} else {
		// Without a steady state the wait grows all run long: there is no mean to bound.
		row("mean wait Wq (s)", r.MeanWait, "", "unstable")
	}
	row("utilisation", r.Utilisation, "", fmt.Sprintf("%.6f", min(rho, 1)))
	row("Little: Lq vs λ·Wq", r.MeanInQueue, "", fmt.Sprintf("%.6f", r.ArrivalRate*r.MeanWait))
	fmt.Fprintf(stdout, "customers %d, events %d, %.3g events/s (wall clock)\n",
		r.Arrivals, r.Events, float64(r.Events)/wall.Seconds())
	return nil
}

// mmcLevel is the confidence level of the mean wait's interval.
const mmcLevel = 0.95

// mmcCoverage says whether Erlang C's exact Wq lies inside the batch-means interval mean ± half.
func mmcCoverage(mean, half, wq float64) string {
	if math.IsNaN(half) {
		return "no 95 % interval: no customer that arrived after the warm-up was served"
	}
	where := "inside"
	if math.Abs(mean-wq) > half {
		where = "outside"
	}
	return fmt.Sprintf("Erlang C's Wq %.6f lies %s the 95 %% interval [%.6f, %.6f] (%d batch means, Student t)",
		wq, where, mean-half, mean+half, mmc.Batches)
}
