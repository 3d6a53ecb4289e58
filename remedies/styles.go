package remedies

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles holds every style of the text output, by role. They are declared
// here and nowhere else.
type styles struct {
	fatal, err, warning, info lipgloss.Style // severity badges
	title                     lipgloss.Style
	id, meta                  lipgloss.Style
	message                   lipgloss.Style
	label                     lipgloss.Style
	code                      lipgloss.Style
	removed, added, kept      lipgloss.Style // flag diff
	minus, plus               lipgloss.Style
	summary, ok               lipgloss.Style
	sources                   []lipgloss.Style // one per input, by name
}

// newStyles builds the styles for one writer. With color false every style
// renders plain text.
func newStyles(w io.Writer, color bool) styles {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	badge := func(bg string) lipgloss.Style {
		return r.NewStyle().Bold(true).Foreground(lipgloss.Color("231")).Background(lipgloss.Color(bg)).Padding(0, 1)
	}
	return styles{
		fatal:   badge("125"),
		err:     badge("160"),
		warning: badge("172").Foreground(lipgloss.Color("16")),
		info:    badge("25"),
		title:   r.NewStyle().Bold(true),
		id:      r.NewStyle().Foreground(lipgloss.Color("75")),
		meta:    r.NewStyle().Foreground(lipgloss.Color("245")),
		message: r.NewStyle().Foreground(lipgloss.Color("210")),
		label:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("75")),
		code:    r.NewStyle().Foreground(lipgloss.Color("222")),
		removed: r.NewStyle().Foreground(lipgloss.Color("203")).Bold(true),
		added:   r.NewStyle().Foreground(lipgloss.Color("78")).Bold(true),
		kept:    r.NewStyle().Foreground(lipgloss.Color("250")),
		minus:   r.NewStyle().Foreground(lipgloss.Color("203")),
		plus:    r.NewStyle().Foreground(lipgloss.Color("78")),
		summary: r.NewStyle().Bold(true),
		ok:      r.NewStyle().Foreground(lipgloss.Color("78")).Bold(true),
		sources: []lipgloss.Style{
			r.NewStyle().Foreground(lipgloss.Color("81")).Bold(true),
			r.NewStyle().Foreground(lipgloss.Color("213")).Bold(true),
			r.NewStyle().Foreground(lipgloss.Color("221")).Bold(true),
			r.NewStyle().Foreground(lipgloss.Color("120")).Bold(true),
			r.NewStyle().Foreground(lipgloss.Color("209")).Bold(true),
			r.NewStyle().Foreground(lipgloss.Color("147")).Bold(true),
		},
	}
}
