package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/google/go-cmp/cmp"
)

// TestFlagNeedsValue runs command lines whose flag lacks its value through
// the real CLI: each is a usage error (exit 2) naming the flag, and no file
// is named after the word that follows it ("--", "--strict", "-o"...).
func TestFlagNeedsValue(t *testing.T) {
	t.Parallel()
	study, _ := legalStudy(t)
	// STUDY, DATA and OUT stand for the study folder, an input file and a
	// file or folder in the case's own temporary directory.
	tests := []struct {
		name string
		args string
		want string // stderr
	}{
		{"out last after the source", "pull STUDY --out", "flag --out needs a value (FILE.jsonl)"},
		{"out before a bool flag", "pull STUDY --out --strict", "flag --out needs a value (FILE.jsonl), got the flag --strict"},
		{"out before the source and a bool flag", "pull --out --strict STUDY", "flag --out needs a value (FILE.jsonl), got the flag --strict"},
		{"out before its own alias", "pull --out -o OUT STUDY", "flag --out needs a value (FILE.jsonl), got the flag -o"},
		{"out before flag=value", "pull STUDY --out --report=OUT", "flag --out needs a value (FILE.jsonl), got the flag --report=OUT"},
		{"out before a flag that takes a value", "pull STUDY --out --template x", "flag --out needs a value (FILE.jsonl), got the flag --template"},
		{"short out last", "pull STUDY -o", "flag -o needs a value (FILE.jsonl)"},
		{"short out before a bool flag", "pull STUDY -o --strict", "flag -o needs a value (FILE.jsonl), got the flag --strict"},
		{"single-dash long out", "pull STUDY -out --strict", "flag -out needs a value (FILE.jsonl), got the flag --strict"},
		{"out before the end of flags", "pull STUDY --out --", "flag --out needs a value (FILE.jsonl)"},
		{"out before the end of flags and the source", "pull --out -- STUDY", "flag --out needs a value (FILE.jsonl)"},
		{"out empty", "pull STUDY --out=", "flag --out needs a value (FILE.jsonl), got an empty one"},
		{"short out empty", "pull STUDY -o=", "flag -o needs a value (FILE.jsonl), got an empty one"},
		{"out with a dash value", "pull STUDY --out -x", "flag --out needs a value (FILE.jsonl), got -x; a value that starts with '-' goes as --out=-x"},
		{"report last", "pull STUDY --strict --report", "flag --report needs a value (FILE.json)"},
		{"report before out", "pull STUDY --report --out OUT", "flag --report needs a value (FILE.json), got the flag --out"},
		{"report empty", "pull STUDY --report=", "flag --report needs a value (FILE.json), got an empty one"},
		{"template last", "pull STUDY --template", "flag --template needs a value (NAME)"},
		{"template empty", "pull STUDY --template= --out OUT", "flag --template needs a value (NAME), got an empty one"},
		{"endpoint last", "pull STUDY --endpoint", "flag --endpoint needs a value (URL)"},
		{"first slip is reported", "pull STUDY --report --out", "flag --report needs a value (FILE.json), got the flag --out"},
		{"generate out last", "generate -t legal-gaps -i DATA -o", "flag -o needs a value (DIR)"},
		{"generate out before force", "generate -t legal-gaps -i DATA --out --force", "flag --out needs a value (DIR), got the flag --force"},
		{"generate template last", "generate -i DATA -o OUT -t", "flag -t needs a value (NAME)"},
		{"generate input last", "generate -t legal-gaps -o OUT --input", "flag --input needs a value (PATH)"},
		{"generate input empty", "generate -t legal-gaps -o OUT --input= -i DATA", "flag --input needs a value (PATH), got an empty one"},
		{"generate annotators before a flag", "generate -t legal-gaps -i DATA -o OUT -a --seed 3", "flag -a needs a value (ID), got the flag --seed"},
		{"generate negative seed", "generate -t legal-gaps -i DATA -o OUT --seed -1", "flag --seed needs a value (N), got -1; a value that starts with '-' goes as --seed=-1"},
		{"generate format last", "generate -t legal-gaps -i DATA -o OUT --format", "flag --format needs a value"},
		{"export out last", "export STUDY --native --out", "flag --out needs a value (FILE)"},
		{"export manifest before out", "export OUT --native --manifest --out OUT", "flag --manifest needs a value (manifest.json), got the flag --out"},
		{"status endpoint last", "status STUDY --endpoint", "flag --endpoint needs a value (URL)"},
		{"auth login port last", "auth login --port", "flag --port needs a value (PORT)"},
		{"auth login client secret before a flag", "auth login --client-secret --no-browser", "flag --client-secret needs a value (FILE), got the flag --no-browser"},
	}
	t.Run("group", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				code, stdout, stderr := runCLI(t, expand(tt.args, study, dir)...)
				want := "annosheet: " + strings.ReplaceAll(tt.want, "OUT", filepath.Join(dir, "out")) + " (see --help)\n"
				if code != exitUsage || stdout != "" {
					t.Errorf("%s: exit %d, stdout %q; want exit %d", tt.args, code, stdout, exitUsage)
				}
				if diff := cmp.Diff(want, stderr); diff != "" {
					t.Errorf("%s: stderr (-want +got):\n%s", tt.args, diff)
				}
				if names := dashNames(t, dir); len(names) > 0 {
					t.Errorf("%s: made %q in the working folder", tt.args, names)
				}
			})
		}
	})
	// After every case: neither the package folder (the working folder of
	// the tests) nor the study's has a file named like a flag.
	for _, d := range []string{".", study, filepath.Dir(study)} {
		for _, n := range dashNames(t, d) {
			t.Errorf("a command line made %s", filepath.Join(d, n))
			os.RemoveAll(filepath.Join(d, n)) // so that the next run starts clean
		}
	}
}

// TestFlagValues checks that command lines with flags after the arguments,
// --flag=value, repeated and comma-separated slices and help keep working.
func TestFlagValues(t *testing.T) {
	t.Parallel()
	study, _ := legalStudy(t)
	tests := []struct {
		name  string
		args  string
		files []string // made in the case's temporary folder
		out   string   // a line stdout has
	}{
		{"flags after the source", "pull STUDY --out OUT.jsonl --report OUT.json", []string{"out.json", "out.jsonl"}, ""},
		{"flags before the source", "pull --out OUT.jsonl --strict STUDY", []string{"out.jsonl"}, ""},
		{"bool flag before the source", "pull --strict STUDY -o OUT.jsonl", []string{"out.jsonl"}, ""},
		{"short out", "pull STUDY -o OUT.jsonl --strict", []string{"out.jsonl"}, ""},
		{"out=value", "pull STUDY --out=OUT.jsonl --strict", []string{"out.jsonl"}, ""},
		{"short out=value", "pull STUDY -o=OUT.jsonl", []string{"out.jsonl"}, ""},
		{"single-dash long out", "pull STUDY -out OUT.jsonl", []string{"out.jsonl"}, ""},
		{"end of flags", "pull --out OUT.jsonl -- STUDY", []string{"out.jsonl"}, ""},
		{"help after the source", "pull STUDY --help", nil, "annosheet pull [command options] SOURCE..."},
		{"short help", "pull -h", nil, "annosheet pull [command options] SOURCE..."},
		{"help wins over a flag missing its value", "pull STUDY --out --help", nil, "annosheet pull [command options] SOURCE..."},
		{"help as the value", "pull STUDY --out -h", nil, "annosheet pull [command options] SOURCE..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, stdout, stderr := runCLI(t, expand(tt.args, study, dir)...)
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", tt.args, code, stderr)
			}
			if !strings.Contains(stdout, tt.out) {
				t.Errorf("%s: stdout lacks %q:\n%s", tt.args, tt.out, stdout)
			}
			var names []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if diff := cmp.Diff(tt.files, names); diff != "" {
				t.Errorf("%s: files (-want +got):\n%s", tt.args, diff)
			}
		})
	}
	t.Run("slices", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if code, _, stderr := runCLI(t, expand("generate -t legal-gaps --input DATA -o OUT -a ak,bt -a cz", study, dir)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		books, _ := filepath.Glob(filepath.Join(dir, "out", "*.xlsx"))
		if len(books) != 3 {
			t.Errorf("workbooks for ak, bt and cz: %q", books)
		}
	})
}

// TestInterspersed checks how the command line is rewritten for urfave/cli.
func TestInterspersed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want string // the rewritten line, or the error
	}{
		{"pull a --out b c", "pull --out b -- a c"},
		{"pull --out b a", "pull --out b -- a"},
		{"pull a --out=-x", "pull --out=-x -- a"},
		{"pull a --out=--strict", "pull --out=--strict -- a"},
		{"pull a --strict --report r", "pull --strict --report r -- a"},
		{"pull a - --out b", "pull --out b -- a -"},
		{"pull a -- --out", "pull -- a --out"},
		{"pull a --bogus b", "pull --bogus -- a b"},
		{"pull a --strict=false", "pull --strict=false -- a"},
		{"pull --out b", "pull --out b"},
		{"pull", "pull"},
		{"generate -i a --input b -a x,y --annotators z", "generate -i a --input b -a x,y --annotators z"},
		{"templates show x --json", "templates show --json -- x"},
		{"templates show --help x", "templates show --help"},
		{"pull a --out -h", "pull --help"},
		{"pull a --out ho", "pull --out ho -- a"},
		{"generate --message hi", "generate --message hi"},
		{"nosuch --out", "nosuch --out"},
		{"pull a --out", "flag --out needs a value (FILE.jsonl)"},
		{"pull a --out --strict", "flag --out needs a value (FILE.jsonl), got the flag --strict"},
		{"pull a --out=", "flag --out needs a value (FILE.jsonl), got an empty one"},
		{"pull a --out -x", "flag --out needs a value (FILE.jsonl), got -x; a value that starts with '-' goes as --out=-x"},
		{"pull a --endpoint=", "pull --endpoint= -- a"},
		{"generate --message= --out d", "generate --message= --out d"},
		{"generate --batch-size -3", "flag --batch-size needs a value (N), got -3; a value that starts with '-' goes as --batch-size=-3"},
		{"auth login --timeout", "flag --timeout needs a value"},
	}
	for _, tt := range tests {
		app := newApp(strings.NewReader(""), nil, nil)
		got, err := cliargs.Interspersed(app.Commands, append([]string{"annosheet"}, strings.Fields(tt.args)...), emptyValueOK)
		var line string
		if err != nil {
			if exitCode(err) != exitUsage {
				t.Errorf("%s: %v is not a usage error", tt.args, err)
			}
			line = err.Error()
		} else {
			line = strings.Join(got[1:], " ")
		}
		if line != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.args, line, tt.want)
		}
	}
}

// expand splits a command line at spaces and puts paths in place of STUDY,
// DATA and OUT (a name in dir).
func expand(line, study, dir string) []string {
	r := strings.NewReplacer("STUDY", study, "DATA", legalData, "OUT", filepath.Join(dir, "out"))
	return strings.Fields(r.Replace(line))
}

// dashNames lists the entries of dir that are named like a flag.
func dashNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "-") {
			names = append(names, e.Name())
		}
	}
	return names
}
