package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows long work on stderr.
type progress interface {
	Add(n int)
	Finish()
}

// newProgress is a progress bar on w when w is a terminal, and nothing
// otherwise: logs and pipes get no bar.
func newProgress(w io.Writer, total int64, what string) progress {
	// The bar is drawn on the terminal itself, past the escaping of
	// standard error: its own carriage returns redraw it.
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok || total <= 0 || !term.IsTerminal(int(f.Fd())) {
		return noProgress{}
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

type noProgress struct{}

func (noProgress) Add(int) {}
func (noProgress) Finish() {}
