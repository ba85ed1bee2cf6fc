package bad

import (
	r1 "math/rand"
	"math/rand/v2"
	"sync"
	"time"

	"gonum.org/v1/plot"
)

var mu sync.Mutex

func f() {
	_ = time.Now()
	time.Sleep(time.Second)
	_ = rand.IntN(3)
	_ = r1.Int()
	go f()
	ch := make(chan int)
	select {
	case <-ch:
	}
	_ = plot.New
	// lint:ignore the fixture checks that the escape hatch works
	_ = time.Since(time.Time{})
	_ = rand.New(rand.NewPCG(1, 2)) // allowed: an explicit generator
	_ = time.Duration(5)            // allowed: not the wall clock
}
