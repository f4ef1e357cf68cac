package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/assign"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
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
	printError(stderr, err)
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

// indentJSON writes v as indented JSON and a newline.
func indentJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
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

// printError writes an error as one line per problem, each starting with
// the file (and line or cell) it is about; many problems of an input,
// their cause first and a few of them (see records.Problems.Summary).
func printError(w io.Writer, err error) {
	if reflect.TypeOf(err) == joinType {
		// Several problems said at once: each one its lines and hint.
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			printError(w, e)
		}
		return
	}
	var ps records.Problems
	var tl templates.ErrorList
	switch {
	case errors.As(err, &ps):
		for _, line := range ps.Summary(problemExamples) {
			fmt.Fprintln(w, line)
		}
	case errors.As(err, &tl):
		for _, e := range tl {
			fmt.Fprintln(w, e.Error())
		}
	default:
		msg := err.Error()
		if errors.Is(err, context.Canceled) && !strings.HasPrefix(msg, "interrupted") {
			// Ctrl-C before anything was written (outputs are written
			// whole, at the end).
			msg = "interrupted: nothing was written; run the same command again"
		}
		if errors.Is(err, cliargs.ErrUsage) {
			if h := hint(err); h != "" {
				msg += " (" + h + "; see --help)"
			} else {
				msg += " (see --help)"
			}
		} else if h := hint(err); h != "" && strings.Contains(msg, "\n") {
			// After a list, on a line of its own, not on its last item.
			msg += "\n" + strings.ToUpper(h[:1]) + h[1:] + "."
		} else if h != "" {
			msg += " (" + h + ")"
		}
		for _, line := range strings.Split(msg, "\n") {
			fmt.Fprintln(w, "annosheet: "+line)
		}
	}
}

// emptyValueOK names the flags whose empty value means something: an empty
// --message sends Google's own sharing mail, an empty --endpoint is Google's
// (overriding ANNOSHEET_ENDPOINT). For every other flag an empty value (a
// file, folder, template, number, ID...) is a slip, and a usage error.
var emptyValueOK = map[string]bool{"message": true, "endpoint": true}

// joinType is the type of errors.Join's errors, which printError says
// one by one (and no other error with several causes).
var joinType = reflect.TypeOf(errors.Join(errors.New("")))

// problemExamples is how many of many problems of an input are shown,
// after their cause.
const problemExamples = 3

// flagError says an option the records refuse as the flag that gave it.
func flagError(err error) error {
	if reflect.TypeOf(err) == joinType {
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

// hint says what to do about an error, in the command line's words: the
// packages below say what is wrong, and only here are flags named.
func hint(err error) string {
	switch {
	case errors.As(err, new(*study.EndpointError)):
		return "use another --out for this one"
	case errors.Is(err, study.ErrAnswered):
		return "pull them first, then add --discard-answers to replace them"
	case errors.Is(err, study.ErrUnknownAnswers):
		return "move it away, or add --discard-answers"
	case errors.Is(err, atomicfile.ErrExists):
		return "use another --out, or --force to replace it"
	case errors.Is(err, atomicfile.ErrNotFile), errors.Is(err, atomicfile.ErrNoFolder):
		return "give a path where there is a regular file or nothing, in a folder that exists"
	case errors.Is(err, atomicfile.ErrChanged), errors.Is(err, backend.ErrChanged):
		return "it was left as it is; run the same command again to read it as it is now"
	case errors.Is(err, study.ErrInputChanged):
		return "give it with --input and --input-changed to export with it anyway"
	case errors.Is(err, study.ErrNoInputs):
		return "give --manifest FILE or --input PATH"
	case errors.Is(err, study.ErrNeedsManifest):
		return "give --manifest"
	case errors.Is(err, study.ErrGivenInputChanged):
		return "add --input-changed if you mean it"
	case errors.Is(err, study.ErrInputMissing):
		return "give --input"
	case errors.Is(err, study.ErrProblems):
		return "fix them and pull again, export only complete units with --complete-only, or export them as they are with --allow-problems"
	case errors.Is(err, sheets.ErrNoCredentials):
		return "run 'annosheet auth login --client-secret FILE', or set GOOGLE_APPLICATION_CREDENTIALS to a service account key"
	case errors.Is(err, sheets.ErrServiceAccountFolder):
		return "give --folder, the ID of a folder in a shared drive it can write to, or sign in as a user with 'annosheet auth login'"
	case errors.Is(err, sheets.ErrNoAuthEndpoint):
		return "--no-auth needs a loopback --endpoint"
	case errors.Is(err, sheets.ErrForeignEndpoint):
		return "leave out --endpoint (and " + envEndpoint + ") for Google's own, or give a loopback one for a dry run"
	case errors.Is(err, export.ErrSamePath):
		return "give --out with {annotator}, or --annotators"
	case errors.Is(err, export.ErrSeveralAnnotators):
		return "export one annotator at a time with --annotators ID, or a file per annotator with {annotator} in --out"
	case errors.Is(err, assign.ErrOptions):
		return "--overlap K needs K or more --annotators, and --batch-size a positive number (0: no bound)"
	case errors.Is(err, records.ErrNoTemplate):
		return "give the study's manifest, or --template NAME|FILE"
	case errors.Is(err, records.ErrNotRecords):
		return "pull it first: annosheet pull FILE --out records.jsonl"
	case errors.Is(err, study.ErrNeedsInputs):
		return "give the study's manifest with --manifest, or the study's folder as the SOURCE"
	case errors.Is(err, study.ErrUnresolved):
		return "decide them in the adjudication workbooks and pull it again, or export the rest of each unit with --allow-unresolved"
	}
	return ""
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
