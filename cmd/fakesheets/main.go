// Command fakesheets runs a fake of the Google Sheets and Drive APIs on
// 127.0.0.1, for dry runs of annosheet with --format gsheets without a
// Google account. It keeps everything in memory and forgets it on exit.
//
//	fakesheets
//	annosheet generate --format gsheets --endpoint http://127.0.0.1:PORT --no-auth ...
//
// Faults can be injected while it runs (POST a JSON list to /_fake/faults,
// such as [{"match":"batchUpdate","status":429,"retry_after":"1","times":3}]),
// and /_fake/calls lists the calls answered.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	addr         string
	requireAuth  bool
	clientSecret string
	folders      multi
	sharedFolder multi
}

type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// run serves until ctx ends; ready, if set, gets the URL once listening.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakesheets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "loopback `address` to listen on")
	fs.BoolVar(&o.requireAuth, "require-auth", false, "refuse calls without an access token from the fake's OAuth endpoints")
	fs.StringVar(&o.clientSecret, "client-secret-out", "", "write an OAuth client `FILE` for 'annosheet auth login' against the fake")
	fs.Var(&o.folders, "folder", "make a Drive folder with this `NAME` and print its ID (repeatable)")
	fs.Var(&o.sharedFolder, "shared-folder", "make a folder of a shared drive with this `NAME` and print its ID (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: fakesheets [flags]\n\nA fake Google Sheets API on 127.0.0.1 for dry runs of annosheet --format gsheets.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakesheets: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := serve(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "fakesheets:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o options, stdout io.Writer) error {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if !sheets.IsLoopback(base) {
		ln.Close()
		return fmt.Errorf("-addr %s: the fake listens on loopback addresses only", o.addr)
	}
	fake, err := sheetsfake.New(sheetsfake.Options{RequireAuth: o.requireAuth})
	if err != nil {
		ln.Close()
		return err
	}
	fake.SetBase(base)
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "fakesheets listening on %s\n", base)
	for _, n := range o.folders {
		fmt.Fprintf(stdout, "folder %q: %s\n", n, fake.AddFolder(n, false))
	}
	for _, n := range o.sharedFolder {
		fmt.Fprintf(stdout, "shared-drive folder %q: %s\n", n, fake.AddFolder(n, true))
	}
	if o.clientSecret != "" {
		if err := os.WriteFile(o.clientSecret, fake.ClientSecretJSON(), 0o600); err != nil {
			ln.Close()
			return err
		}
		fmt.Fprintf(stdout, "OAuth client written: sign in to the fake with\n  ANNOSHEET_CONFIG_DIR=$(mktemp -d) annosheet auth login --client-secret %s\n(its own config folder keeps the dry run's sign-in apart from your Google one)\n", o.clientSecret)
	}
	if o.requireAuth {
		fmt.Fprintf(stdout, "try: annosheet generate --format gsheets --endpoint %s ... (after signing in to the fake)\n", base)
	} else {
		fmt.Fprintf(stdout, "try: annosheet generate --format gsheets --endpoint %s --no-auth ...\n", base)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
