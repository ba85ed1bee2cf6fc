package rare

import (
	"fmt"
	"io"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// Stage is one level of a splitting estimate, over all its repetitions: how many
// trajectories set out for the level and how many reached it.
type Stage struct {
	Level float64 `json:"level"`
	Runs  int     `json:"runs"`
	Hits  int     `json:"hits"`
}

// Estimate is an estimate of a probability: the value, its 95 % interval, its relative
// error (standard error ÷ estimate) and what it cost in loop events.
type Estimate struct {
	P      float64 `json:"p"`
	CILo   float64 `json:"ciLo"`
	CIHi   float64 `json:"ciHi"`
	RelErr float64 `json:"relErr"`
	Cost   float64 `json:"cost"`
	Stages []Stage `json:"stages,omitempty"`
}

// Result is the result of a rare-event estimate: the probability that Score reaches the last of
// Levels at some interval end within the run, by multilevel splitting, and optionally by plain
// replication at the same cost.
type Result struct {
	Header      results.Header `json:"header"`
	Score       string         `json:"score"`
	Step        time.Duration  `json:"step"` // the score is observed at the end of every step
	From        time.Duration  `json:"from"` // … that ends after this time
	Levels      []float64      `json:"levels"`
	N           int            `json:"n"`           // trajectories per stage
	Repetitions int            `json:"repetitions"` // independent repetitions
	PilotCost   float64        `json:"pilotCost"`   // events spent choosing the levels; 0 without a pilot
	Splitting   Estimate       `json:"splitting"`
	// BruteForce is plain replication with about Splitting's cost; absent when not asked for.
	BruteForce *Estimate `json:"bruteForce,omitempty"`
}

// Describe says what was estimated and how well, in one paragraph.
func (r *Result) Describe() string {
	top := r.Levels[len(r.Levels)-1]
	e := &r.Splitting
	text := fmt.Sprintf("P(%s ≥ %g over a %s step between %s and %s) = %.3g (95 %% interval %.3g to %.3g, relative error %.2f) by splitting over %d levels, %.3g events",
		r.Score, top, r.Step, r.From, r.Header.Duration, e.P, e.CILo, e.CIHi, e.RelErr, len(r.Levels), e.Cost)
	if b := r.BruteForce; b != nil {
		runs := 0
		if len(b.Stages) > 0 {
			runs = b.Stages[0].Runs
		}
		text += fmt.Sprintf("; plain replication at the same cost (%d runs, %.3g events): %.3g (95 %% interval %.3g to %.3g)",
			runs, b.Cost, b.P, b.CILo, b.CIHi)
	}
	return text
}

// Write writes rare.json into dir (created if needed), replacing the result it held (see
// WriteRunDir).
func Write(dir string, r Result) error {
	return results.WriteResult(dir, results.KindRare, r.Header, "", []results.OutputFile{
		{Name: results.RareFile, Write: func(w io.Writer) error { return results.WriteJSON(w, r) }}})
}
