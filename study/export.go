package study

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
)

// ErrInputChanged is wrapped when a study's input no longer has the
// content the workbooks were made from.
var ErrInputChanged = errors.New("input changed since the workbooks were generated")

// ErrInputMissing is wrapped when a study's input cannot be found.
var ErrInputMissing = errors.New("input not found")

// InputPaths finds the study's inputs, as generate was given them. Paths
// in the manifest are relative to its folder: they are looked for there
// first (the study moved with its inputs), then where the study was made
// (the study moved alone), then as written (manifests of older versions,
// relative to where generate ran), then in the manifest's folder itself
// (the inputs sent along with the study). Every file must have the content it
// had: a found file whose SHA-256 differs is an error.
func (m *Manifest) InputPaths() ([]string, error) {
	bases := []func(string) string{func(p string) string { return joinRel(m.Dir(), p) }}
	if m.Manifest.Dir != "" {
		bases = append(bases, func(p string) string { return joinRel(filepath.FromSlash(m.Manifest.Dir), p) })
	}
	bases = append(bases, func(p string) string { return filepath.FromSlash(p) })
	// Copied into the study's folder, as when the study is sent as one
	// archive with its inputs.
	bases = append(bases, func(p string) string { return filepath.Join(m.Dir(), filepath.Base(filepath.FromSlash(p))) })
	var changed error
	for _, base := range bases {
		ok := true
		for _, in := range m.Inputs {
			path := base(in.Path)
			h, err := manifest.HashFile(path)
			if err != nil {
				ok = false
				break
			}
			if h.SHA256 != in.SHA256 {
				if changed == nil {
					changed = fmt.Errorf("%s: %w (SHA-256 %s…, was %s…)", path, ErrInputChanged, h.SHA256[:12], in.SHA256[:12])
				}
				ok = false
				break
			}
		}
		if ok {
			out := make([]string, len(m.InputArgs))
			for i, a := range m.InputArgs {
				out[i] = base(a)
			}
			return out, nil
		}
	}
	if changed != nil {
		return nil, changed
	}
	var names []string
	for _, in := range m.Inputs {
		names = append(names, in.Path)
	}
	return nil, fmt.Errorf("%s: %w: %s (looked beside the manifest and where the study was made)", m.Path, ErrInputMissing, strings.Join(names, ", "))
}

// joinRel joins a relative path to dir; an absolute path stays.
func joinRel(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// ChangedInputs lists the inputs given in place of the manifest's whose
// content differs from the study's, for a warning.
func (m *Manifest) ChangedInputs(files []string) []string {
	var out []string
	for i, f := range files {
		if i >= len(m.Inputs) {
			break
		}
		h, err := manifest.HashFile(f)
		if err != nil || h.SHA256 != m.Inputs[i].SHA256 {
			out = append(out, f)
		}
	}
	return out
}

// ErrProblems is wrapped when records to export have error-level problems.
var ErrProblems = errors.New("records with errors")

// ErrUnresolved is wrapped when gold records to export have values that
// nobody decided.
var ErrUnresolved = errors.New("gold records with unresolved values")

// SelectOptions say which records an export may take.
type SelectOptions struct {
	// CompleteOnly keeps complete units only.
	CompleteOnly bool
	// AllowProblems keeps records with error-level problems.
	AllowProblems bool
	// AllowUnresolved keeps gold records with values nobody decided;
	// they are listed in Selection.Unresolved.
	AllowUnresolved bool
}

// Selection is what SelectForExport keeps and leaves out.
type Selection struct {
	Records []*records.Annotation
	// Left out, by status: with CompleteOnly, the partial, empty and
	// missing units; always the missing and unreadable ones (there is
	// nothing of them).
	Partial, Empty, Missing, Unreadable int
	// WithErrors counts the records kept although they have errors
	// (AllowProblems).
	WithErrors int
	// Unresolved says, for each gold record kept although values of it
	// are unresolved (AllowUnresolved), which.
	Unresolved []string
}

// SelectForExport picks the records to export. A record with an
// error-level problem is refused unless AllowProblems; a gold record with
// a value nobody decided unless AllowUnresolved; CompleteOnly keeps only
// complete units. Every refusal is said at once: all the units of each
// kind, one line per unresolved unit.
func SelectForExport(recs []*records.Annotation, opt SelectOptions) (*Selection, error) {
	s := &Selection{}
	var bad, unresolved []string
	for _, r := range recs {
		switch {
		case r.Status == records.StatusMissing:
			s.Missing++
			continue
		case r.Status == records.StatusUnreadable:
			s.Unreadable++
			continue
		case opt.CompleteOnly && r.Status == records.StatusPartial:
			s.Partial++
			continue
		case opt.CompleteOnly && r.Status == records.StatusEmpty:
			s.Empty++
			continue
		}
		refused := false
		if hasError(r) {
			if !opt.AllowProblems {
				bad = append(bad, r.Unit+by(r.Annotator))
				refused = true
			} else {
				s.WithErrors++
			}
		}
		if why := Undecided(r); why != "" {
			if !opt.AllowUnresolved {
				unresolved = append(unresolved, why)
				refused = true
			} else {
				s.Unresolved = append(s.Unresolved, why)
			}
		}
		if !refused {
			s.Records = append(s.Records, r)
		}
	}
	var errs []error
	if n := len(bad); n > 0 {
		errs = append(errs, fmt.Errorf("%w: %s (%s)",
			ErrProblems, words.Count(n, "unit")+" with error-level problems", words.Some(bad, 5)))
	}
	if len(unresolved) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s nobody decided:\n  %s", ErrUnresolved, words.Count(len(unresolved), "gold unit"), strings.Join(unresolved, "\n  ")))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Undecided says what of a gold record is still to decide, as "unit:
// question (decision d0003, Gaps!H4), …"; "" for a record that is not
// gold or has nothing unresolved.
func Undecided(r *records.Annotation) string {
	if r.Annotator != records.GoldAnnotator {
		return ""
	}
	var what []string
	say := func(q string, p *records.Provenance) {
		if p == nil || p.Kind != records.ProvenanceUnresolved {
			return
		}
		where := []string{}
		if p.Decision != "" {
			where = append(where, "decision "+p.Decision)
		}
		if p.Cell != "" {
			where = append(where, p.Cell)
		}
		w := q
		if len(where) > 0 {
			w += " (" + strings.Join(where, ", ") + ")"
		}
		if !slices.Contains(what, w) {
			what = append(what, w)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(r.Provenance)) {
		say(q, r.Provenance[q])
	}
	for _, sp := range r.Spans {
		say(sp.Question, sp.Provenance)
	}
	if len(what) == 0 {
		return ""
	}
	return r.Unit + ": " + strings.Join(what, ", ") + " unresolved"
}

func hasError(r *records.Annotation) bool {
	for _, p := range r.Problems {
		if p.Severity == records.Error {
			return true
		}
	}
	return false
}
