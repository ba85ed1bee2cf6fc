package plot

import (
	"fmt"

	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tip"
)

// WriteTipFigures draws the tipping-point search in dir (tip.json, as tip.Write writes it) and
// writes its figure, as chart.TipFigure builds it, as tip.svg and tip.png into dir. It returns
// the base names written ([chart.Tip]).
func WriteTipFigures(dir string) ([]string, error) {
	t, err := tip.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	f, err := tipFigure(&t)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, []*figure{f})
}

// TipSVG returns the search's figure as SVG, without writing it.
func TipSVG(t *tip.Result) ([]byte, error) {
	f, err := tipFigure(t)
	if err != nil {
		return nil, err
	}
	return f.svg()
}

// tipFigure renders the search's figure as chart.TipFigure builds it.
func tipFigure(t *tip.Result) (*figure, error) {
	cf, err := chart.TipFigure(t)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	return render(cf), nil
}
