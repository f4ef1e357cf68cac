package xlsx

import (
	"math"
	"testing"
)

func TestDateFormats(t *testing.T) {
	const (
		pi     = 45365.0 // Thursday 14 March 2024
		pm330  = 45365 + 0.6458333333333334
		e1904  = 43903.0 // the same day in the 1904 date system
		halfHr = 1.0 / 48
	)
	for _, c := range []struct {
		code   string
		v      float64
		d1904  bool
		want   string
		wantOK bool
	}{
		{"yyyy-mm-dd", pi, false, "2024-03-14", true},
		{"m/d/yy", pi, false, "3/14/24", true},
		{"d-mmm-yy", pi, false, "14-Mar-24", true},
		{"mmmm d, yyyy", pi, false, "March 14, 2024", true},
		{"MMMM D, YYYY", pi, false, "March 14, 2024", true},
		{"dddd", pi, false, "Thursday", true},
		{"ddd dd", pi, false, "Thu 14", true},
		{"mmmmm", pi, false, "M", true},
		{"yyy e", pi, false, "2024 2024", true},
		{"mm/dd", pi, false, "03/14", true},
		{"h:mm AM/PM", pm330, false, "3:30 PM", true},
		{"h:mm am/pm", 0.25, false, "6:00 am", true},
		{"hh:mm:ss", 0.5, false, "12:00:00", true},
		{"h:mm:ss A/P", 0.25, false, "6:00:00 A", true},
		{"h AM/PM", 0, false, "12 AM", true},
		{"[h]:mm:ss", 1.5, false, "36:00:00", true},
		{"[mm]:ss", 1.0 / 24, false, "60:00", true},
		{"[ss]", 1.0 / 1440, false, "60", true},
		{"mm:ss", halfHr, false, "30:00", true},
		{"mm:ss.0", 62.36 / 86400, false, "01:02.4", true},
		{"hh:mm:ss.000", (3600 + 0.5) / 86400, false, "01:00:00.500", true},
		{"yyyy-mm-dd hh:mm", pi + 0.99999999, false, "2024-03-15 00:00", true},
		{"h:mm", 0.999, false, "23:58", true},
		{`h"h"mm`, pm330, false, "15h30", true},
		{`"Day" d`, pi, false, "Day 14", true},
		{`yyyy\-mm`, pi, false, "2024-03", true},
		{`[$-409]dddd, mmmm dd, yyyy`, pi, false, "Thursday, March 14, 2024", true},
		{`[$-F800]dddd\,\ mmmm\ dd\,\ yyyy`, pi, false, "Thursday, March 14, 2024", true},
		{`[Red][<100]yyyy;@`, pi, false, "2024", true},
		{`_(yyyy_)`, pi, false, " 2024 ", true},
		{`* yyyy`, pi, false, "2024", true},
		{"yyyy-mm-dd", 1, false, "1900-01-01", true},
		{"dddd", 1, false, "Sunday", true},
		{"yyyy-mm-dd", 59, false, "1900-02-28", true},
		{"yyyy-mm-dd", 60, false, "1900-02-29", true},
		{"yyyy-mm-dd", 61, false, "1900-03-01", true},
		{"dddd", 61, false, "Thursday", true},
		{"yyyy-mm-dd", 0, false, "1900-01-00", true},
		{"yyyy-mm-dd", 2958465, false, "9999-12-31", true},
		{"yyyy-mm-dd", 2958466, false, "", false},
		{"yyyy-mm-dd", -1, false, "", false},
		{"yyyy-mm-dd", 0, true, "1904-01-01", true},
		{"yyyy-mm-dd dddd", e1904, true, "2024-03-14 Thursday", true},
		{"yyyy-mm-dd", 2957003, true, "9999-12-31", true},
		{"yyyy-mm-dd", 2957004, true, "", false},
	} {
		f, ok := compileDateFormat(c.code)
		if !ok {
			t.Errorf("%q is not read as a date format", c.code)
			continue
		}
		got, ok := f.render(c.v, c.d1904)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%q of %v (1904: %v) = %q, %v; want %q, %v", c.code, c.v, c.d1904, got, ok, c.want, c.wantOK)
		}
	}
	for _, code := range []string{"General", "0", "0.00", "0.00E+00", "##0.0e-0", "#,##0", "0%", `"days" 0`, "@",
		"#,##0.00 [$€-407]", `0.0\h`, `_(* #,##0_);_(* (#,##0);_(* "-"??_);_(@_)`, "[Red]0.00", "# ?/?"} {
		if _, ok := compileDateFormat(code); ok {
			t.Errorf("%q is read as a date format", code)
		}
	}
}

func TestBuiltinDateFormats(t *testing.T) {
	v := 45365 + 0.6458333333333334
	want := map[int]string{
		14: "2024-03-14", 15: "14-Mar-24", 16: "14-Mar", 17: "Mar-24", 18: "3:30 PM", 19: "3:30:00 PM",
		20: "15:30", 21: "15:30:00", 22: "2024-03-14 15:30", 45: "30:00", 46: "1088775:30:00", 47: "30:00.0",
	}
	for id, w := range want {
		f, ok := compileDateFormat(builtinDateFormats[id])
		if !ok {
			t.Fatalf("built-in %d is not a date format", id)
		}
		if got, _ := f.render(v, false); got != w {
			t.Errorf("built-in %d: %q, want %q", id, got, w)
		}
	}
	for _, id := range []int{27, 31, 36, 50, 58} {
		if !isEastAsianDate(id) {
			t.Errorf("built-in %d is not a date", id)
		}
	}
	var ea *dateFormat // the East Asian built-ins
	for v, w := range map[float64]string{45365: "2024-03-14", v: "2024-03-14 15:30:00", 0.5: "12:00:00"} {
		if got, _ := ea.render(v, false); got != w {
			t.Errorf("East Asian date %v: %q, want %q", v, got, w)
		}
	}
}

func TestISODate(t *testing.T) {
	for _, c := range []struct {
		in    string
		d1904 bool
		want  float64
		ok    bool
	}{
		{"2024-03-14", false, 45365, true},
		{"2024-03-14T15:30:00", false, 45365.645833333333, true},
		{"2024-03-14 15:30:00.5", false, 45365.645839120370, true},
		{"2024-03-14T15:30:00Z", false, 45365.645833333333, true},
		{"2024-03-14T15:30:00+02:00", false, 45365.645833333333, true},
		{"2024-03-14T15:30", false, 45365.645833333333, true},
		{"15:30:00", false, 0.645833333333, true},
		{"T12:00:00", false, 0.5, true},
		{"1900-02-28", false, 59, true},
		{"1900-03-01", false, 61, true},
		{"1900-01-01", false, 1, true},
		{"1904-01-01", true, 0, true},
		{"2024-03-14", true, 43903, true},
		{"1899-12-01", false, 0, false},
		{"2024-13-01", false, 0, false},
		{"2024-03-14X", false, 0, false},
		{"14/03/2024", false, 0, false},
		{"abc", false, 0, false},
	} {
		got, ok := isoDate(c.in, c.d1904)
		if ok != c.ok || ok && math.Abs(got-c.want) > 1e-9 {
			t.Errorf("isoDate(%q, %v) = %v, %v; want %v, %v", c.in, c.d1904, got, ok, c.want, c.ok)
		}
	}
}
