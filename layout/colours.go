package layout

import (
	"strconv"
	"strings"
)

// colourName names a fill (RRGGBB; "" is no fill, which spreadsheets show
// white) in the words an annotator would use: "white", "light grey",
// "pale blue". The Instructions sheet describes the sheet's colours with
// it, so that what it says follows from the colours drawn.
func colourName(fill string) string {
	if fill == "" {
		return "white"
	}
	n, err := strconv.ParseUint(fill, 16, 32)
	if err != nil || len(fill) != 6 {
		return "#" + strings.ToUpper(fill)
	}
	r, g, b := float64(n>>16&0xff)/255, float64(n>>8&0xff)/255, float64(n&0xff)/255
	hi, lo := max(r, g, b), min(r, g, b)
	light := (hi + lo) / 2
	if hi-lo < 0.05 { // no hue to speak of
		switch {
		case light > 0.97:
			return "white"
		case light > 0.75:
			return "light grey"
		case light > 0.35:
			return "grey"
		case light > 0.1:
			return "dark grey"
		}
		return "black"
	}
	var hue float64
	switch hi {
	case r:
		hue = (g - b) / (hi - lo)
	case g:
		hue = 2 + (b-r)/(hi-lo)
	default:
		hue = 4 + (r-g)/(hi-lo)
	}
	hue *= 60
	if hue < 0 {
		hue += 360
	}
	var name string
	switch {
	case hue < 15 || hue >= 345:
		name = "red"
	case hue < 45:
		name = "orange"
	case hue < 70:
		name = "yellow"
	case hue < 165:
		name = "green"
	case hue < 195:
		name = "turquoise"
	case hue < 255:
		name = "blue"
	case hue < 290:
		name = "purple"
	default:
		name = "pink"
	}
	switch {
	case light > 0.85:
		return "pale " + name
	case light > 0.65:
		return "light " + name
	case light < 0.3:
		return "dark " + name
	}
	return name
}

// colourNames names fills, each name once, in their order.
func colourNames(fills []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fills {
		if n := colourName(f); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// wordList joins words as prose does: "a", "a and b", "a, b and c".
func wordList(words []string, and string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}
