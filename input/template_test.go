package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/fifo"
)

// A template with one problem, reported at its question (line 11): the
// scale's bounds are swapped.
const badTemplate = `name: demo
version: 1
title: Demo
instructions: Rate each answer.
input: {id: "{id}"}
rows: {per: record}
context:
  - name: answer
    path: answer
questions:
  - name: rating
    type: scale
    min: 5
    max: 1
`

// Template takes a built-in name or a file.
func TestTemplate(t *testing.T) {
	tp, err := Template("legal-gaps", nil)
	if err != nil || tp.Name != "legal-gaps" || tp.File != "builtin:legal-gaps" {
		t.Fatalf("Template(legal-gaps) = %v, %v", tp, err)
	}
	const mqm = "../testdata/templates/mqm.yaml"
	tp, err = Template(mqm, nil)
	if err != nil {
		t.Fatalf("Template(%s): %v", mqm, err)
	}
	if tp.Name != "mqm-translation" || tp.Version != 2 || tp.File != mqm {
		t.Errorf("Template(%s): name %q version %d file %q", mqm, tp.Name, tp.Version, tp.File)
	}

	_, err = Template("no-such-template", nil)
	if !errors.Is(err, templates.ErrUnknown) {
		t.Fatalf("Template(no-such-template) = %v; want ErrUnknown", err)
	}
	want := `unknown template "no-such-template": not a built-in (factgenie-meta-eval, legal-gaps, preference-likert, qa-span-errors) and no such file`
	if err.Error() != want {
		t.Errorf("Template(no-such-template) error:\n got %s\nwant %s", err, want)
	}

	// A name that looks like a file is read as one.
	_, err = Template("no-such-template.yaml", nil)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, templates.ErrUnknown) {
		t.Errorf("Template(no-such-template.yaml) = %v; want fs.ErrNotExist", err)
	}

	// A bad file gives its problems, located in the file.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(badTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Template(bad, nil)
	var got templates.ErrorList
	if !errors.As(err, &got) {
		t.Fatalf("Template(bad.yaml) = %v; want an ErrorList", err)
	}
	wantL := templates.ErrorList{{File: bad, Line: 11, Msg: `question "rating": min 5 must be below max 1`}}
	if d := cmp.Diff(wantL, got); d != "" {
		t.Errorf("Template(bad.yaml) (-want +got):\n%s", d)
	}
}

// Parameters given with a file reach the template, as with a built-in.
func TestTemplateParams(t *testing.T) {
	_, err := Template("legal-gaps", map[string]string{"no-such-param": "x"})
	_, errFile := TemplateFile("../testdata/templates/mqm.yaml", map[string]string{"no-such-param": "x"})
	if err == nil || errFile == nil {
		t.Errorf("an unknown parameter was accepted: built-in %v, file %v", err, errFile)
	}
}

// A file over templates.MaxSize is refused, naming the file and the limit;
// a named pipe is refused without waiting for a writer.
func TestTemplateFileBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t testing.TB, p string)
		want func(p string) error // the error, as a full value
	}{
		{name: "one byte over", make: func(t testing.TB, p string) {
			if err := os.WriteFile(p, append([]byte("name: x\n# "), bytes.Repeat([]byte("a"), templates.MaxSize-9)...), 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: tooLargeTemplate},
		{name: "sparse, 10 GiB", make: func(t testing.TB, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, 10<<30); err != nil {
				t.Fatal(err)
			}
		}, want: tooLargeTemplate},
		{name: "named pipe", make: fifo.Make, want: func(p string) error {
			return fmt.Errorf("read template: %w", fmt.Errorf("%s: %w (a named pipe)", p, boundedread.ErrNotRegular))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "big.yaml")
			tc.make(t, p)
			var err error
			fifo.Within(t, 10*time.Second, func() { _, err = TemplateFile(p, nil) })
			want := tc.want(p)
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("TemplateFile = %v; want %v", err, want)
			}
			var e *templates.Error
			if errors.As(want, &e) && !errors.Is(err, templates.ErrInvalid) {
				t.Errorf("TemplateFile = %v; want an *Error wrapping ErrInvalid", err)
			}
			if !errors.As(want, &e) && !errors.Is(err, boundedread.ErrNotRegular) {
				t.Errorf("TemplateFile = %v; want an error wrapping ErrNotRegular", err)
			}
		})
	}
}

func tooLargeTemplate(p string) error {
	return &templates.Error{File: p, Msg: "larger than the 1 MiB a template may be"}
}

func TestTemplateFileMissing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "missing.yaml")
	_, err := TemplateFile(name, nil)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, templates.ErrInvalid) || errors.Is(err, templates.ErrUnknown) {
		t.Errorf("TemplateFile(missing) = %v; want an error wrapping fs.ErrNotExist only", err)
	}
}
