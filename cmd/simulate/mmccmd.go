package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"overloadsim/internal/mmc"
	"overloadsim/internal/queueing"
)

var mmcCommand = command{
	summary: "run the built-in M/M/c queue and compare it with Erlang C",
	usage: `Usage: simulate mmc [options]

Runs an M/M/c queue (Poisson arrivals, c exponential servers, one FIFO queue) on the
simulation kernel and prints its measurements next to Erlang C, with the kernel's speed.

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
		maxTime := fs.Duration("max-time", defaultMaxTime, "refuse a run estimated to take longer than this")
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
					cfg.C, cfg.Horizon, events, humanDuration(secs), *maxTime)
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
	fmt.Fprintf(stdout, "%-24s %14s %14s\n", "", "simulated", "Erlang C")
	if rho < 1 {
		fmt.Fprintf(stdout, "%-24s %14.6f %14.6f\n", "mean wait Wq (s)", r.MeanWait, queueing.MMcWait(cfg.Lambda, cfg.Mu, cfg.C))
		fmt.Fprintf(stdout, "%-24s %14.6f %14.6f\n", "P(wait)", float64(r.Waited)/float64(max(r.Arrivals, 1)), queueing.ErlangC(cfg.C, a))
	} else {
		fmt.Fprintf(stdout, "%-24s %14.6f %14s\n", "mean wait Wq (s)", r.MeanWait, "unstable")
	}
	fmt.Fprintf(stdout, "%-24s %14.6f %14.6f\n", "utilisation", r.Utilisation, min(rho, 1))
	fmt.Fprintf(stdout, "%-24s %14.6f %14.6f\n", "Little: Lq vs λ·Wq", r.MeanInQueue, r.ArrivalRate*r.MeanWait)
	fmt.Fprintf(stdout, "customers %d, events %d, %.3g events/s (wall clock)\n",
		r.Arrivals, r.Events, float64(r.Events)/wall.Seconds())
	return nil
}
