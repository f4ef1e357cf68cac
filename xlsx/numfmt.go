package xlsx

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Dates in a workbook are numbers: days since an epoch, the time of day
// as the fraction. A cell is a date when its number format shows it as
// one; the reader then keeps the number as stored and renders what the
// sheet shows from the format's date and time codes.
//
// Formats are rendered in English (month and day names, AM/PM) whatever
// locale tag they carry. The built-in formats whose look depends on the
// reader's locale have a fixed rendering here:
//
//	14  yyyy-mm-dd          (a short date: 3/14/2024 in the United States)
//	15  d-mmm-yy
//	16  d-mmm
//	17  mmm-yy
//	18  h:mm AM/PM
//	19  h:mm:ss AM/PM
//	20  h:mm
//	21  h:mm:ss
//	22  yyyy-mm-dd hh:mm    (a short date and time)
//	45  mm:ss
//	46  [h]:mm:ss
//	47  mm:ss.0
//
// The East Asian built-ins (27 to 36 and 50 to 58), whose meaning differs
// between Chinese, Japanese and Korean, are dates shown as yyyy-mm-dd,
// with hh:mm:ss when the number has a time of day (hh:mm:ss alone below
// one day).
var builtinDateFormats = map[int]string{
	14: "yyyy-mm-dd", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
	22: "yyyy-mm-dd hh:mm", 45: "mm:ss", 46: "[h]:mm:ss", 47: "mm:ss.0",
}

func isEastAsianDate(id int) bool { return 27 <= id && id <= 36 || 50 <= id && id <= 58 }

// A dateFormat is a number format that shows dates or times, compiled.
// A nil *dateFormat is the ISO rendering of the East Asian built-ins.
type dateFormat struct {
	toks []fmtTok
	frac int // digits of the fraction of a second shown
}

type fmtKind uint8

const (
	fLit fmtKind = iota
	fYear
	fMonth // n digits (1, 2), or a name: 3 short, 4 full, 5 its initial
	fDay   // n digits (1, 2), or a name: 3 short, 4 full
	fHour
	fMinute
	fSecond
	fFrac   // n digits of a second
	fAMPM   // lit holds "AM/PM", "am/pm", "A/P" or "a/p" as written
	fHours  // [h]: hours elapsed
	fMins   // [m]: minutes elapsed
	fSecs   // [s]: seconds elapsed
	fMonthM // m or mm, month or minute: resolved by compile
)

type fmtTok struct {
	kind fmtKind
	n    int
	lit  string
}

// compileDateFormat compiles a format code; ok is false when it shows no
// date or time. Only the first section (of positive;negative;zero;text)
// counts: a date is never negative.
func compileDateFormat(code string) (f *dateFormat, ok bool) {
	f = &dateFormat{}
	lit := func(s string) {
		if n := len(f.toks); n > 0 && f.toks[n-1].kind == fLit {
			f.toks[n-1].lit += s
			return
		}
		f.toks = append(f.toks, fmtTok{kind: fLit, lit: s})
	}
	run := func(s string, i int, c byte) int { // length of the run of c (either case) at i
		n := 0
		for i+n < len(s) && s[i+n]|0x20 == c {
			n++
		}
		return n
	}
	date := false
	for i := 0; i < len(code); {
		c := code[i]
		switch lc := c | 0x20; {
		case c == ';':
			i = len(code)
			continue
		case c == '"':
			end := strings.IndexByte(code[i+1:], '"')
			if end < 0 {
				end = len(code) - i - 1
			}
			lit(code[i+1 : i+1+end])
			i += end + 2
			continue
		case c == '\\' && i+1 < len(code):
			lit(code[i+1 : i+2])
			i += 2
			continue
		case c == '_' && i+1 < len(code):
			lit(" ")
			i += 2
			continue
		case c == '*' && i+1 < len(code):
			i += 2
			continue
		case c == '[':
			end := strings.IndexByte(code[i:], ']')
			if end < 0 {
				end = len(code) - i
			}
			in := strings.ToLower(code[i+1 : i+end])
			switch {
			case in != "" && strings.Trim(in, "h") == "":
				f.toks = append(f.toks, fmtTok{kind: fHours, n: len(in)})
				date = true
			case in != "" && strings.Trim(in, "m") == "":
				f.toks = append(f.toks, fmtTok{kind: fMins, n: len(in)})
				date = true
			case in != "" && strings.Trim(in, "s") == "":
				f.toks = append(f.toks, fmtTok{kind: fSecs, n: len(in)})
				date = true
			case strings.HasPrefix(in, "$"):
				// [$€-407]: a currency symbol and a locale; show the
				// symbol.
				sym := code[i+2 : i+end]
				if k := strings.IndexByte(sym, '-'); k >= 0 {
					sym = sym[:k]
				}
				lit(sym)
			}
			i += end + 1
			continue
		case lc == 'e' && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-'):
			// An exponent (0.00E+00): not a date.
		case lc == 'y' || lc == 'e':
			n := run(code, i, lc)
			digits := 4
			if lc == 'y' && n <= 2 {
				digits = 2
			}
			f.toks = append(f.toks, fmtTok{kind: fYear, n: digits})
			date = true
			i += n
			continue
		case lc == 'm':
			n := run(code, i, 'm')
			if n <= 2 {
				f.toks = append(f.toks, fmtTok{kind: fMonthM, n: n})
			} else {
				f.toks = append(f.toks, fmtTok{kind: fMonth, n: min(n, 5)})
			}
			date = true
			i += n
			continue
		case lc == 'd':
			n := run(code, i, 'd')
			f.toks = append(f.toks, fmtTok{kind: fDay, n: min(n, 4)})
			date = true
			i += n
			continue
		case lc == 'h':
			n := run(code, i, 'h')
			f.toks = append(f.toks, fmtTok{kind: fHour, n: min(n, 2)})
			date = true
			i += n
			continue
		case lc == 's':
			n := run(code, i, 's')
			f.toks = append(f.toks, fmtTok{kind: fSecond, n: min(n, 2)})
			date = true
			i += n
			// A fraction of a second: s.0, ss.00 …
			if i+1 < len(code) && code[i] == '.' && code[i+1] == '0' {
				k := 1
				for i+k < len(code) && code[i+k] == '0' {
					k++
				}
				f.toks = append(f.toks, fmtTok{kind: fFrac, n: min(k-1, 3)})
				f.frac = max(f.frac, min(k-1, 3))
				i += k
			}
			continue
		case lc == 'a' && ampmAt(code, i) > 0:
			n := ampmAt(code, i)
			f.toks = append(f.toks, fmtTok{kind: fAMPM, lit: code[i : i+n]})
			i += n
			continue
		case lc == 'g':
			if len(code)-i >= 7 && strings.EqualFold(code[i:i+7], "general") {
				i += 7
				continue
			}
			i += run(code, i, 'g') // an era: not shown here
			continue
		case lc == 'b' && i+1 < len(code) && (code[i+1] == '1' || code[i+1] == '2'):
			i += 2 // a calendar: Gregorian is shown
			continue
		case c == '@':
			i++
			continue
		}
		lit(code[i : i+1])
		i++
	}
	if !date {
		return nil, false
	}
	// m and mm are minutes after an hour or before a second, else months.
	for i, t := range f.toks {
		if t.kind != fMonthM {
			continue
		}
		f.toks[i].kind = fMonth
		for j := i - 1; j >= 0; j-- {
			if k := f.toks[j].kind; k != fLit && k != fAMPM {
				if k == fHour || k == fHours {
					f.toks[i].kind = fMinute
				}
				break
			}
		}
		for j := i + 1; j < len(f.toks); j++ {
			if k := f.toks[j].kind; k != fLit && k != fAMPM {
				if k == fSecond || k == fSecs {
					f.toks[i].kind = fMinute
				}
				break
			}
		}
	}
	return f, true
}

// ampmAt is the length of AM/PM or A/P (in any case) at code[i:], or 0.
func ampmAt(code string, i int) int {
	for _, m := range []string{"am/pm", "a/p"} {
		if len(code)-i >= len(m) && strings.EqualFold(code[i:i+len(m)], m) {
			return len(m)
		}
	}
	return 0
}

// maxSerial is 9999-12-31, the last day Excel shows.
const maxSerial = 2958466

// dateParts is a serial number taken apart.
type dateParts struct {
	y, m, d, wd  int // wd: 0 is Sunday
	days         int64
	h, mi, s, ms int // ms: the fraction of the second, in units of the format's precision
}

// splitSerial takes a serial number apart, rounded to whole seconds or
// to frac digits of one. The 1900 date system keeps Excel's 29 February
// 1900 and 0 January 1900.
func splitSerial(v float64, date1904 bool, frac int) (dateParts, bool) {
	if math.IsNaN(v) || v < 0 || v >= maxSerial {
		return dateParts{}, false
	}
	unit := int64(math.Pow10(frac))
	perDay := 86400 * unit
	day := math.Floor(v)
	x := int64(math.Round((v - day) * float64(perDay)))
	p := dateParts{days: int64(day)}
	if x >= perDay {
		p.days++
		x -= perDay
	}
	p.ms = int(x % unit)
	secs := int(x / unit)
	p.h, p.mi, p.s = secs/3600, secs/60%60, secs%60
	switch {
	case date1904:
		t := time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(p.days))
		p.y, p.m, p.d, p.wd = t.Year(), int(t.Month()), t.Day(), int(t.Weekday())
		return p, p.y <= 9999
	case p.days == 0:
		p.y, p.m, p.d = 1900, 1, 0
	case p.days == 60:
		p.y, p.m, p.d = 1900, 2, 29
	default:
		base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
		if p.days < 60 {
			base = base.AddDate(0, 0, 1)
		}
		t := base.AddDate(0, 0, int(p.days))
		p.y, p.m, p.d = t.Year(), int(t.Month()), t.Day()
	}
	p.wd = int((p.days + 6) % 7) // Excel's weekdays, 0 January 1900 a Saturday
	return p, p.y <= 9999
}

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// render shows the serial number v in the format; ok is false for a
// number no date has (negative, or after 9999).
func (f *dateFormat) render(v float64, date1904 bool) (string, bool) {
	if f == nil {
		return isoShown(v, date1904)
	}
	p, ok := splitSerial(v, date1904, f.frac)
	if !ok {
		return "", false
	}
	ampm := false
	for _, t := range f.toks {
		ampm = ampm || t.kind == fAMPM
	}
	var b strings.Builder
	pad := func(v, n int) {
		s := strconv.Itoa(v)
		for k := len(s); k < n; k++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	for _, t := range f.toks {
		switch t.kind {
		case fLit:
			b.WriteString(t.lit)
		case fYear:
			if t.n == 2 {
				pad(p.y%100, 2)
			} else {
				pad(p.y, 4)
			}
		case fMonth:
			switch t.n {
			case 1, 2:
				pad(p.m, t.n)
			case 3:
				b.WriteString(monthNames[p.m-1][:3])
			case 4:
				b.WriteString(monthNames[p.m-1])
			default:
				b.WriteString(monthNames[p.m-1][:1])
			}
		case fDay:
			switch t.n {
			case 1, 2:
				pad(p.d, t.n)
			case 3:
				b.WriteString(dayNames[p.wd][:3])
			default:
				b.WriteString(dayNames[p.wd])
			}
		case fHour:
			h := p.h
			if ampm {
				if h %= 12; h == 0 {
					h = 12
				}
			}
			pad(h, t.n)
		case fMinute:
			pad(p.mi, t.n)
		case fSecond:
			pad(p.s, t.n)
		case fFrac:
			b.WriteByte('.')
			s := strconv.Itoa(p.ms + int(math.Pow10(f.frac)))[1:] // leading zeros kept
			b.WriteString((s + "000")[:t.n])
		case fAMPM:
			am := p.h < 12
			switch {
			case len(t.lit) == 3: // A/P
				if am {
					b.WriteByte(t.lit[0])
				} else {
					b.WriteByte(t.lit[2])
				}
			case am:
				b.WriteString(t.lit[:2])
			default:
				b.WriteString(t.lit[3:])
			}
		case fHours:
			pad(int(p.days)*24+p.h, t.n)
		case fMins:
			pad((int(p.days)*24+p.h)*60+p.mi, t.n)
		case fSecs:
			pad(((int(p.days)*24+p.h)*60+p.mi)*60+p.s, t.n)
		}
	}
	return b.String(), true
}

// isoShown is a serial number as yyyy-mm-dd, with hh:mm:ss when it has a
// time of day, or hh:mm:ss alone below one day.
func isoShown(v float64, date1904 bool) (string, bool) {
	p, ok := splitSerial(v, date1904, 0)
	if !ok {
		return "", false
	}
	date := pad4(p.y) + "-" + pad2(p.m) + "-" + pad2(p.d)
	clock := pad2(p.h) + ":" + pad2(p.mi) + ":" + pad2(p.s)
	switch {
	case p.days == 0 && !date1904:
		return clock, true
	case p.h == 0 && p.mi == 0 && p.s == 0:
		return date, true
	}
	return date + " " + clock, true
}

func pad2(v int) string { return string([]byte{byte('0' + v/10%10), byte('0' + v%10)}) }
func pad4(v int) string { return pad2(v/100) + pad2(v%100) }

// isoDate reads the text of a t="d" cell, an ISO 8601 date, time, or
// both, as a serial number. A time zone, when given, is dropped: a sheet
// shows the wall-clock time.
func isoDate(s string, date1904 bool) (float64, bool) {
	s = strings.TrimSpace(s)
	var datePart, timePart string
	switch {
	case len(s) >= 10 && s[4] == '-' && s[7] == '-':
		datePart = s[:10]
		if len(s) > 10 {
			if s[10] != 'T' && s[10] != ' ' {
				return 0, false
			}
			timePart = s[11:]
		}
	case len(s) >= 8 && s[2] == ':':
		timePart = strings.TrimPrefix(s, "T")
	case strings.HasPrefix(s, "T"):
		timePart = s[1:]
	default:
		return 0, false
	}
	var days float64
	if datePart != "" {
		t, err := time.Parse("2006-01-02", datePart)
		if err != nil {
			return 0, false
		}
		base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
		if date1904 {
			base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		d := t.Sub(base).Hours() / 24
		if !date1904 && d < 61 {
			d-- // before Excel's 29 February 1900
		}
		if d < 0 {
			return 0, false
		}
		days = d
	}
	if timePart != "" {
		// Drop a zone: Z, +hh:mm or -hh:mm.
		if k := strings.IndexAny(timePart, "Z+-"); k >= 0 {
			timePart = timePart[:k]
		}
		t, err := time.Parse("15:04:05.999999999", timePart)
		if err != nil {
			if t, err = time.Parse("15:04", timePart); err != nil {
				return 0, false
			}
		}
		secs := float64(t.Hour()*3600+t.Minute()*60+t.Second()) + float64(t.Nanosecond())/1e9
		days += secs / 86400
	}
	return days, true
}
