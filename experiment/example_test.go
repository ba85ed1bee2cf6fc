package experiment_test

import (
	"context"
	"fmt"

	"github.com/overloadsim/overloadsim/experiment"
)

// Results come back by index whatever the number of workers.
func ExampleRunIndexed() {
	squares, done, err := experiment.RunIndexed(context.Background(), 5, 3, func(i int) (int, error) { return i * i, nil }, nil)
	fmt.Println(squares, done, err)
	// Output:
	// [0 1 4 9 16] [true true true true true] <nil>
}
