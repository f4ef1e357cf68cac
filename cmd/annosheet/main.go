// Command annosheet runs human annotation studies in spreadsheets: it
// generates annotator-ready workbooks from an annotation template and the
// study's data, and reads the filled sheets back into validated JSON.
//
//	annosheet templates list
//	annosheet generate --template legal-gaps --input examples/legal-gaps.jsonl --out study/
//
// Run "annosheet --help" or "annosheet COMMAND --help" for the reference.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// memoryLimit is the heap size past which the garbage collector works
// harder (Go's soft memory limit), unless GOMEMLIMIT sets another.
// annosheet streams: what it holds grows with the number of units, not
// with their text (some 50 MB at 100,000 units). Without a limit the
// collector lets the heap grow to twice what is live before it runs.
const memoryLimit = 96 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
