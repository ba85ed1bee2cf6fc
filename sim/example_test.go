package sim_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// desk is a one-server queue: a sim.Handler whose event kinds are its actions.
type desk struct {
	loop    *sim.Loop
	service *rand.Rand // service times, from the run's stream "example/desk/service"
	waiting []*job
	busy    bool
}

// job is the payload of the desk's events: a pointer, so that scheduling allocates nothing.
type job struct {
	id      int
	timeout sim.Timer // the job's patience, cancelled when it starts service
}

// The desk's event kinds.
const (
	evArrive = iota
	evDone
	evGiveUp
)

// patience is how long a job waits for the server before it gives up.
const patience = 3 * time.Millisecond

func (d *desk) HandleEvent(now sim.Time, kind int, arg any) {
	j := arg.(*job)
	switch kind {
	case evArrive:
		fmt.Printf("%-8v job %d arrives\n", now, j.id)
		j.timeout = d.loop.After(patience, d, evGiveUp, j)
		d.waiting = append(d.waiting, j)
		d.next(now)
	case evGiveUp:
		fmt.Printf("%-8v job %d gives up\n", now, j.id)
		for i, w := range d.waiting {
			if w == j {
				d.waiting = append(d.waiting[:i], d.waiting[i+1:]...)
				break
			}
		}
	case evDone:
		fmt.Printf("%-8v job %d done\n", now, j.id)
		d.busy = false
		d.next(now)
	}
}

// next starts the first waiting job, if the server is free.
func (d *desk) next(now sim.Time) {
	if d.busy || len(d.waiting) == 0 {
		return
	}
	j := d.waiting[0]
	d.waiting = d.waiting[1:]
	d.loop.Cancel(j.timeout) // it is served: its patience no longer matters
	s := time.Duration(d.service.ExpFloat64() * float64(3*time.Millisecond)).Round(time.Microsecond)
	fmt.Printf("%-8v job %d starts, service %v\n", now, j.id, s)
	d.busy = true
	d.loop.After(s, d, evDone, j)
}

// Example runs a one-server queue on the kernel: a handler whose event kinds are its actions,
// five jobs arriving 1 ms apart, a timer per job (its patience, 3 ms) cancelled when it starts
// service or firing when it runs out, and service times (exponential, mean 3 ms) drawn from a named stream of a run
// seeded with 1, so the run is the same on every machine. Events at the same instant run in the
// order they were scheduled.
func Example() {
	loop := sim.NewLoop()
	d := &desk{loop: loop, service: loop.NewStream(1, "example/desk/service")}
	for i := range 5 {
		loop.At(sim.Time(time.Duration(i)*time.Millisecond), d, evArrive, &job{id: i + 1})
	}
	n := loop.Run()
	fmt.Printf("%d events, the last at %v; streams %v\n", n, loop.Now(), loop.Streams()[0].Name)
	// Output:
	// 0s       job 1 arrives
	// 0s       job 1 starts, service 223µs
	// 223µs    job 1 done
	// 1ms      job 2 arrives
	// 1ms      job 2 starts, service 1.569ms
	// 2ms      job 3 arrives
	// 2.569ms  job 2 done
	// 2.569ms  job 3 starts, service 3.018ms
	// 3ms      job 4 arrives
	// 4ms      job 5 arrives
	// 5.587ms  job 3 done
	// 5.587ms  job 4 starts, service 2.689ms
	// 7ms      job 5 gives up
	// 8.276ms  job 4 done
	// 10 events, the last at 8.276ms; streams example/desk/service
}
