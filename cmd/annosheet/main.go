// Command annosheet runs human annotation studies in spreadsheets: it
// generates annotator-ready workbooks from an annotation template and the
// study's data, and reads the filled sheets back into validated JSON.
//
//	annosheet templates list
//	annosheet generate --template legal-gaps --input examples/legal-gaps.jsonl --out my-study/
//
// Run "annosheet --help" or "annosheet COMMAND --help" for the reference.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/annosheet/annosheet/internal/memlimit"
)

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		memlimit.Tune(memlimit.Default)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
