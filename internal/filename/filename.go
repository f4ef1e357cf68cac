// Package filename makes parts of file names out of IDs that people chose
// (annotators, adjudicators, batches), so that no ID can name another
// folder, no name outgrows what file systems take, and no two IDs end up
// naming one file, on a file system that ignores case or Unicode
// normalisation (macOS, Windows) as much as on one that does not.
//
//	parts, err := filename.Parts([]string{"a/b", "ak"})
//	// parts["a/b"] == "a_b"; with "a_b" among the IDs too, err says that
//	// both would be written to one file.
package filename

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxPart bounds a part in bytes: with a prefix and an extension it stays
// well under the 255 bytes a file name may have.
const MaxPart = 64

// ErrCollision is wrapped by the error of two IDs that would name one
// file.
var ErrCollision = errors.New("two IDs would name one file")

// CollisionError names two IDs that give one file name.
type CollisionError struct {
	A, B string // the IDs, in the order given
	Name string // the part both would give
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("%q and %q would both be written as %q (file names ignore case and accents' encoding on some systems)", e.A, e.B, e.Name)
}

func (e *CollisionError) Unwrap() error { return ErrCollision }

// Part is id as part of a file name: letters, digits and . _ - @ +
// kept, anything else (a slash, a colon, a control character, a space)
// made "_", never starting or ending with a dot, and at most MaxPart
// bytes: a longer ID is cut and ends in a hash of the whole ID, so that
// two IDs that share a long beginning still differ. It is NFC-normalised.
func Part(id string) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || strings.ContainsRune("._-@+", r) {
			return r
		}
		return '_'
	}, norm.NFC.String(id))
	if s == "" {
		s = "_"
	}
	if s[0] == '.' {
		s = "_" + s[1:]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1] + "_"
	}
	if len(s) <= MaxPart {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	cut := MaxPart - 9
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "-" + hex.EncodeToString(sum[:4])
}

// Key is what two file names must differ in to be two files everywhere:
// a name with case folded, NFC-normalised.
func Key(name string) string {
	return strings.ToLower(norm.NFC.String(name))
}

// Parts gives each ID's Part, and a CollisionError when two distinct IDs
// would name one file. The same ID twice is one ID.
func Parts(ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	seen := map[string]string{}
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		p := Part(id)
		if other, ok := seen[Key(p)]; ok {
			return nil, &CollisionError{A: other, B: id, Name: p}
		}
		seen[Key(p)] = id
		out[id] = p
	}
	return out, nil
}

// Unique fails with a CollisionError when two of the names, as given,
// would be one file: the same but for case or normalisation.
func Unique(names []string) error {
	seen := map[string]string{}
	for _, n := range names {
		k := Key(n)
		if other, ok := seen[k]; ok && other != n {
			return &CollisionError{A: other, B: n, Name: n}
		} else if ok {
			return &CollisionError{A: n, B: n, Name: n}
		}
		seen[k] = n
	}
	return nil
}
