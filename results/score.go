package results

import (
	"fmt"

	"github.com/overloadsim/overloadsim/sim"
)

// Score names a quantity observed at the end of every interval by which a rare-event estimator
// measures how far a run has gone towards sticking: the higher, the closer.
type Score string

// Scores.
const (
	// ScoreBacklog is the time-average worker-queue length over the interval, all servers
	// together: work waiting for a worker, much of it abandoned by its client in a storm.
	ScoreBacklog Score = "backlog"
	// ScoreAmplification is attempts ÷ operations issued over the interval, all groups
	// together (1 = no retries).
	ScoreAmplification Score = "amplification"
)

// Scores lists the scores, for help texts and errors.
var Scores = []Score{ScoreBacklog, ScoreAmplification}

// ParseScore returns the score named name.
func ParseScore(name string) (Score, error) {
	for _, s := range Scores {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("score %q: want one of %v", name, Scores)
}

// ScoreAt returns the score of the interval of s that ends at end, and false when no interval
// of s ends there. An interval without operations issued has amplification 0.
func (s *Series) ScoreAt(score Score, end sim.Time) (float64, bool) {
	var found bool
	var queue, secs float64
	var issued, attempts uint64
	for i := len(s.Servers) - 1; i >= 0 && s.Servers[i].End >= end; i-- {
		if v := &s.Servers[i]; v.End == end {
			found, queue, secs = true, queue+v.QueueArea, v.Seconds()
		}
	}
	for i := len(s.Groups) - 1; i >= 0 && s.Groups[i].End >= end; i-- {
		if g := &s.Groups[i]; g.End == end {
			found, issued, attempts = true, issued+g.Issued, attempts+g.Attempts
		}
	}
	switch {
	case !found:
		return 0, false
	case score == ScoreBacklog:
		return fratio(queue, secs), true
	case issued == 0:
		return 0, true
	}
	return float64(attempts) / float64(issued), true
}
