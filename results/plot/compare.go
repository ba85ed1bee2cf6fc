package plot

import "github.com/overloadsim/overloadsim/results/chart"

// WriteCompareFigures draws the comparison of the result folders inputs (all runs, or all
// sweeps) into dir, a comparison folder (compare.Write), as chart.CompareFigure builds it.
// Results that are not drawn together (chart.CompareFigure) give no figure and no error. It
// returns the base names written.
func WriteCompareFigures(dir string, inputs []string, labels []string) ([]string, error) {
	cf, err := chart.CompareFigure(inputs, labels)
	if err != nil || cf == nil {
		return nil, err
	}
	return writeFigures(dir, []*figure{render(cf)})
}
