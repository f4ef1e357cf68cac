package templates

import (
	"fmt"
	"regexp"
	"strings"
)

// Group says how the units of a study fall into the groups a study
// compares (the systems that wrote the texts, say): each unit's group is
// From rendered over its input record, cut down to Pattern's first capture
// group when Pattern is set. `annosheet results` reports an estimate per
// group and compares every pair of groups.
//
// Groups are for the coordinator and never reach a workbook, so, unlike
// the context and the bands, From and PairBy may read anonymised fields:
// the real names are what a comparison is about.
type Group struct {
	// Name is what the groups are called in results ("system").
	Name string `yaml:"name" json:"name"`
	// From is a Format over the input record, written as input.id is:
	// "{id}", "{@.evaluator}" (rows per: element), "{setup_id}", or a
	// literal such as "all" that puts every unit in one group.
	From string `yaml:"from" json:"from"`
	// Pattern, when set, is a regular expression whose first capture
	// group, matched in From's text, names the group.
	Pattern string `yaml:"pattern" json:"pattern,omitempty"`
	// PairBy, when set, is a Format giving each unit a pair key: units with
	// the same key are one item seen by every group (a paired design, such
	// as the same prompt answered by each system).
	PairBy string `yaml:"pair_by" json:"pair_by,omitempty"`
	// PairPattern, when set, is a regular expression whose first capture
	// group, matched in PairBy's text, is the pair key.
	PairPattern string `yaml:"pair_pattern" json:"pair_pattern,omitempty"`
	Line        int    `yaml:"-" json:"-"`

	from        Format
	pattern     *regexp.Regexp
	pairBy      Format
	pairPattern *regexp.Regexp
}

// CandidateGroup is the group a template that shuffles candidates has by
// itself: each candidate's code. No declared group may take its name.
const CandidateGroup = "candidate"

// Value is the unit's group: From rendered in env, through Pattern when it
// is set. Text the pattern does not match and an empty value are errors,
// as is a field From needs and the record lacks (a *MissingError inside).
func (g *Group) Value(env Env) (string, error) {
	return g.value(env, g.from, g.pattern, "from", g.From, "pattern", g.Pattern)
}

// Paired reports whether the group's design is paired: units that share a
// pair key are one item, seen by every group.
func (g *Group) Paired() bool { return g.PairBy != "" }

// PairKey is the unit's pair key: PairBy rendered in env, through
// PairPattern when it is set, with Value's errors. Call it only on a
// paired group.
func (g *Group) PairKey(env Env) (string, error) {
	if !g.Paired() {
		return "", fmt.Errorf("group %q is not paired: it has no pair_by", g.Name)
	}
	return g.value(env, g.pairBy, g.pairPattern, "pair_by", g.PairBy, "pair_pattern", g.PairPattern)
}

// value renders f in env and takes re's first capture group; key and
// patKey name the template's keys in errors, src and patSrc their text.
func (g *Group) value(env Env, f Format, re *regexp.Regexp, key, src, patKey, patSrc string) (string, error) {
	s, err := f.Render(env)
	if err != nil {
		return "", fmt.Errorf("group %q: %s %q: %w", g.Name, key, src, err)
	}
	if re != nil {
		m := re.FindStringSubmatch(s)
		if m == nil {
			return "", fmt.Errorf("group %q: %q does not match the %s %q", g.Name, s, patKey, patSrc)
		}
		if strings.TrimSpace(m[1]) == "" {
			return "", fmt.Errorf("group %q: the %s %q captures nothing in %q", g.Name, patKey, patSrc, s)
		}
		s = m[1]
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("group %q: %s %q gives an empty value", g.Name, key, src)
	}
	return s, nil
}

// Group returns the group called name, or nil.
func (t *Template) Group(name string) *Group {
	for i := range t.Groups {
		if t.Groups[i].Name == name {
			return &t.Groups[i]
		}
	}
	return nil
}
