// Command kit is the Go side of the peers' comparison (bench/peers): it
// makes the data, tells the peers what to write, checks what they wrote
// and read, and measures the floor, the cost of deflate alone.
//
//	kit data -dir D -rows 1000 -text prose     # D/input.jsonl, D/filled.xlsx, D/filled-sst.xlsx
//	kit recipe -manifest GEN/manifest.json -input D/input.jsonl -out D/recipe.jsonl
//	kit check -want GEN/legal-gaps-b01.xlsx PEER.xlsx...
//	kit answers -rows 1000 READ.jsonl...
//	kit floor GEN/legal-gaps-b01.xlsx
//
// The run script calls it; see README.md beside this folder.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kit:", err)
		os.Exit(1)
	}
}

var commands = map[string]func(args []string, stdout io.Writer) error{
	"data":    dataCmd,
	"recipe":  recipeCmd,
	"check":   checkCmd,
	"answers": answersCmd,
	"floor":   floorCmd,
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 || commands[args[0]] == nil {
		return errors.New("usage: kit data|recipe|check|answers|floor [flags]")
	}
	return commands[args[0]](args[1:], stdout)
}

// flags makes a flag set that returns its errors.
func flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("kit "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
