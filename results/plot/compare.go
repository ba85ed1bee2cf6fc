package plot

import (
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/compare"
)

// WriteCompareFigures draws the comparison of the result folders inputs (all runs, or all
// sweeps) into dir, a comparison folder holding their comparison (compare.Write), as
// chart.CompareFigure builds it. Results that are not drawn together (chart.CompareFigure)
// give no figure and no error. It returns the base names written.
func WriteCompareFigures(dir string, inputs []string) ([]string, error) {
	c, err := compare.Read(dir)
	if err != nil {
		return nil, err
	}
	cf, err := chart.CompareFigure(c, inputs)
	if err != nil || cf == nil {
		return nil, err
	}
	return writeFigures(dir, []*figure{render(cf)})
}
