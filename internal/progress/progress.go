// Package progress draws a progress bar for long work on a terminal, and
// nothing where the output is a log or a pipe.
//
//	bar := progress.New(os.Stderr, int64(len(books)), "reading workbooks")
//	defer bar.Finish()
//	bar.Add(1)
package progress

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar shows long work.
type Bar interface {
	Add(n int)
	Finish()
}

// New is a progress bar on w when w is a terminal, and nothing
// otherwise: logs and pipes get no bar.
func New(w io.Writer, total int64, what string) Bar {
	// The bar is drawn on the terminal itself, past the escaping of
	// standard error: its own carriage returns redraw it.
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok || total <= 0 || !term.IsTerminal(int(f.Fd())) {
		return None{}
	}
	return &bar{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100_000_000), // 0.1 s
		progressbar.OptionClearOnFinish(),
	)}
}

type bar struct{ b *progressbar.ProgressBar }

func (b *bar) Add(n int) { b.b.Add(n) }
func (b *bar) Finish()   { b.b.Finish() }

// None is a bar that shows nothing.
type None struct{}

// Add does nothing.
func (None) Add(int) {}

// Finish does nothing.
func (None) Finish() {}

// Counted is a bar of work whose total is told with each step, as a pull
// tells of the workbooks it reads: drawn on w (as New draws it) once the
// first step says the total. Each call of add is one step done; finish
// clears the bar.
func Counted(w io.Writer, what string) (add func(done, total int), finish func()) {
	var b Bar
	add = func(_, total int) {
		if b == nil {
			b = New(w, int64(total), what)
		}
		b.Add(1)
	}
	return add, func() {
		if b != nil {
			b.Finish()
		}
	}
}
