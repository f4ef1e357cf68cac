package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/assign"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // bad input, bad template, I/O
	exitUsage   = 2 // the command line itself is wrong
	exitStrict  = 3 // pull --strict found error-level problems
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// run builds the app and runs it with args; it returns the exit code. All
// output goes to the given writers, so tests run the real CLI in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything on standard error is for a person to read: a character
	// of a typed ID or cell that would act on the terminal (an escape
	// sequence, a direction override) shows as its escape instead.
	errw := safetext.NewWriter(stderr)
	defer errw.Flush()
	stderr = errw
	app := newApp(stdin, stdout, stderr)
	args, err := cliargs.Interspersed(app.Commands, args, emptyValueOK)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if err == nil {
		return exitOK
	}
	render.Error(stderr, err, withHint)
	return exitCode(err)
}

// humanOut is standard output as a command that writes only text for a
// person there (generate, adjudicate, the tables of status and agree)
// gives it: escaped as standard error is. Data written to standard
// output (records, JSON, CSV, a template) is never escaped. Call done
// when the command has written all.
func humanOut(w io.Writer) (out io.Writer, done func()) {
	sw := safetext.NewWriter(w)
	return sw, func() { sw.Flush() }
}

// writeReport writes what write makes to the file out (replaced only
// with force) or, without one, to stdout; it tells whether it wrote a
// file, which the command then names.
func writeReport(out string, force bool, stdout io.Writer, write func(io.Writer) error) (bool, error) {
	if out == "" {
		return false, write(stdout)
	}
	return true, atomicfile.Write(out, force, 0o644, write)
}

// warn writes warnings on stderr, a line each.
func warn(stderr io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(stderr, "warning: "+s) }
}

// exitCode maps an error to the process exit code, in one place.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, cliargs.ErrUsage):
		return exitUsage
	case errors.Is(err, errStrict):
		return exitStrict
	case errors.Is(err, study.ErrNoInputs), errors.Is(err, records.ErrEmpty):
		return exitUsage
	}
	return exitFailure
}

// errStrict is returned by pull --strict when error-level problems exist.
var errStrict = errors.New("error-level problems found (--strict)")

// withHint is an error's message with what to do about it, in the
// command line's words: after a usage error, "see --help"; after a list,
// on a line of its own, not on its last item.
func withHint(err error, msg string) string {
	h := hint(err)
	switch {
	case errors.Is(err, cliargs.ErrUsage) && h != "":
		return msg + " (" + h + "; see --help)"
	case errors.Is(err, cliargs.ErrUsage):
		return msg + " (see --help)"
	case h != "" && strings.Contains(msg, "\n"):
		return msg + "\n" + strings.ToUpper(h[:1]) + h[1:] + "."
	case h != "":
		return msg + " (" + h + ")"
	}
	return msg
}

// emptyValueOK names the flags whose empty value means something: an empty
// --message sends Google's own sharing mail, an empty --endpoint is Google's
// (overriding ANNOSHEET_ENDPOINT). For every other flag an empty value (a
// file, folder, template, number, ID...) is a slip, and a usage error.
var emptyValueOK = map[string]bool{"message": true, "endpoint": true}

// flagError says an option the records refuse as the flag that gave it.
func flagError(err error) error {
	if render.Joined(err) {
		errs := err.(interface{ Unwrap() []error }).Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = flagError(e)
		}
		return errors.Join(out...)
	}
	var oe *study.OptionError
	if errors.As(err, &oe) {
		err = fmt.Errorf("--%s %s: %w", oe.Option, oe.Value, oe.Err)
		if errors.Is(err, study.ErrNoSuchAnnotator) {
			err = cliargs.Usage(err) // a slip of the command line, as a wrong flag is
		}
	}
	return err
}

// endpointUsage turns a spreadsheet sought on the wrong API into the
// usage error that says which --endpoint to give.
func endpointUsage(err error) error {
	var ee *study.EndpointError
	switch {
	case !errors.As(err, &ee):
		return err
	case ee.Recorded == "":
		return cliargs.Usagef("the spreadsheet %s is on Google: leave out --endpoint (and %s)", ee.Spreadsheet, envEndpoint)
	}
	return cliargs.Usagef("the spreadsheet %s is on %s (a dry run): give --endpoint %s --no-auth", ee.Spreadsheet, ee.Recorded, ee.Recorded)
}

// outputUsage says why pull cannot write where --out or --report say
// (study.PullOutput.Check), in the command line's words.
func outputUsage(err error) error {
	var oe *study.OptionError
	switch {
	case !errors.As(err, &oe):
	case errors.Is(err, study.ErrPullReads):
		return cliargs.Usagef("--%s %s: that is a workbook or a study's manifest, which pull reads; give a new .jsonl (or .json) file", oe.Option, oe.Value)
	case errors.Is(err, atomicfile.ErrExists):
		return cliargs.Usagef("--%s %s: the file exists; give another file, or --force to replace it", oe.Option, oe.Value)
	case errors.Is(err, study.ErrSameOutput):
		return cliargs.Usagef("--out and --report are both %s: give each its own file", oe.Value)
	}
	return err
}

// hint says what to do about an error, in the command line's words: the
// packages below say what is wrong, and only here are flags named.
func hint(err error) string {
	if errors.As(err, new(*study.EndpointError)) {
		return "use another --out for this one"
	}
	for _, h := range hints {
		if errors.Is(err, h.err) {
			return h.hint
		}
	}
	return ""
}

// hints say what to do about the errors that name no flag, in the order
// they are sought (an error may wrap several).
var hints = []struct {
	err  error
	hint string
}{
	{study.ErrAnswered, "pull them first, then add --discard-answers to replace them"},
	{study.ErrUnknownAnswers, "move it away, or add --discard-answers"},
	{atomicfile.ErrExists, "use another --out, or --force to replace it"},
	{atomicfile.ErrNotFile, "give a path where there is a regular file or nothing, in a folder that exists"},
	{atomicfile.ErrNoFolder, "give a path where there is a regular file or nothing, in a folder that exists"},
	{atomicfile.ErrChanged, "it was left as it is; run the same command again to read it as it is now"},
	{backend.ErrChanged, "it was left as it is; run the same command again to read it as it is now"},
	{study.ErrInputChanged, "give it with --input and --input-changed to export with it anyway"},
	{study.ErrNoInputs, "give --manifest FILE or --input PATH"},
	{study.ErrNeedsManifest, "give --manifest"},
	{study.ErrGivenInputChanged, "add --input-changed if you mean it"},
	{study.ErrInputMissing, "give --input"},
	{study.ErrProblems, "fix them and pull again, export only complete units with --complete-only, or export them as they are with --allow-problems"},
	{sheets.ErrNoCredentials, "run 'annosheet auth login --client-secret FILE', or set GOOGLE_APPLICATION_CREDENTIALS to a service account key"},
	{sheets.ErrServiceAccountFolder, "give --folder, the ID of a folder in a shared drive it can write to, or sign in as a user with 'annosheet auth login'"},
	{sheets.ErrNoAuthEndpoint, "--no-auth needs a loopback --endpoint"},
	{sheets.ErrForeignEndpoint, "leave out --endpoint (and " + envEndpoint + ") for Google's own, or give a loopback one for a dry run"},
	{export.ErrSamePath, "give --out with {annotator}, or --annotators"},
	{export.ErrSeveralAnnotators, "export one annotator at a time with --annotators ID, or a file per annotator with {annotator} in --out"},
	{assign.ErrControls, "the gold file's units are the controls, and --controls-per-batch says how many join each workbook"},
	{assign.ErrOptions, "--overlap K needs K or more --annotators, and --batch-size a positive number (0: no bound)"},
	{records.ErrNoTemplate, "give the study's manifest, or --template NAME|FILE"},
	{records.ErrNotRecords, "pull it first: annosheet pull FILE --out records.jsonl"},
	{study.ErrNeedsInputs, "give the study's manifest with --manifest, or the study's folder as the SOURCE"},
	{study.ErrUnresolved, "decide them in the adjudication workbooks and pull it again, or export the rest of each unit with --allow-unresolved"},
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:            "annosheet",
		Usage:           "run human annotation studies in spreadsheets",
		Version:         version,
		Description:     help("annosheet"),
		Reader:          stdin,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Suggest:         true,
		// Errors are printed and mapped to exit codes by run, in one place.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			templatesCommand(),
			generateCommand(),
			pullCommand(),
			exportCommand(),
			statusCommand(),
			agreeCommand(),
			resultsCommand(),
			adjudicateCommand(),
			reportCommand(),
			authCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				var names []string
				for _, cmd := range c.App.Commands {
					names = append(names, cmd.Names()...)
				}
				return cliargs.Usagef("unknown command %q%s", c.Args().First(), cliargs.DidYouMean(c.Args().First(), names, ""))
			}
			return cli.ShowAppHelp(c)
		},
	}
	cliargs.SetUsageErrors(app)
	return app
}
