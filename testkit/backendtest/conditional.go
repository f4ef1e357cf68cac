package backendtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/xuri/excelize/v2"
	sheetsapi "google.golang.org/api/sheets/v4"
)

// Look is what a conditional format changes of a cell: its fill, and its
// font's colour and slant. Colours are RRGGBB, "" for none.
type Look struct {
	Fill   string
	Color  string
	Italic bool
}

// String spells a look as Offer.Conditional does: the fill ("FFC7CE"),
// then "FONT" with the font's colour and "italic", each when set
// ("FONT 1F4E9C italic"); "none" for a look that changes nothing.
func (l Look) String() string {
	var parts []string
	if l.Fill != "" {
		parts = append(parts, l.Fill)
	}
	if l.Color != "" || l.Italic {
		parts = append(parts, "FONT")
		if l.Color != "" {
			parts = append(parts, l.Color)
		}
		if l.Italic {
			parts = append(parts, "italic")
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// ConditionalText spells a conditional format as Offer.Conditional lists
// it: its range, its look and its formula without "=", as in
// "B2:E6 FFC7CE: AND(…)" or "B2:B6 FONT 1F4E9C italic: AND(…)".
func ConditionalText(rng string, l Look, formula string) string {
	return fmt.Sprintf("%s %s: %s", rng, l, formula)
}

// XLSXLook is the look of an XLSX conditional format, from the style of
// its dxf (excelize's GetConditionalStyle).
func XLSXLook(st *excelize.Style) Look {
	var l Look
	if st == nil {
		return l
	}
	if len(st.Fill.Color) > 0 {
		l.Fill = hexRGB(st.Fill.Color[0])
	}
	if f := st.Font; f != nil {
		l.Color, l.Italic = hexRGB(f.Color), f.Italic
	}
	return l
}

// SheetsLook is the look of a Google Sheets conditional format, from its
// boolean rule's format: the background, and the text format's colour
// (its ForegroundColor, or the RGB of its ForegroundColorStyle, which
// Google gives as well) and slant.
func SheetsLook(f *sheetsapi.CellFormat) Look {
	var l Look
	if f == nil {
		return l
	}
	if f.BackgroundColor != nil {
		l.Fill = sheetsRGB(f.BackgroundColor)
	} else if s := f.BackgroundColorStyle; s != nil && s.RgbColor != nil {
		l.Fill = sheetsRGB(s.RgbColor)
	}
	if tf := f.TextFormat; tf != nil {
		l.Italic = tf.Italic
		if tf.ForegroundColor != nil {
			l.Color = sheetsRGB(tf.ForegroundColor)
		} else if s := tf.ForegroundColorStyle; s != nil && s.RgbColor != nil {
			l.Color = sheetsRGB(s.RgbColor)
		}
	}
	return l
}

// hexRGB spells an XLSX colour as RRGGBB: upper case, without "#" or the
// alpha of an ARGB colour.
func hexRGB(s string) string {
	s = strings.ToUpper(strings.TrimPrefix(s, "#"))
	if len(s) == 8 {
		s = s[2:]
	}
	return s
}

// sheetsRGB spells a Google colour, components from 0 to 1, as RRGGBB.
func sheetsRGB(c *sheetsapi.Color) string {
	b := func(x float64) int { return int(math.Round(x * 255)) }
	return fmt.Sprintf("%02X%02X%02X", b(c.Red), b(c.Green), b(c.Blue))
}
