package benchdata

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// TextKind is the kind of text the benchmark records hold.
type TextKind int

// The kinds of benchmark text.
const (
	// Prose is prose-like English (ProseText): it deflates about as well
	// as real English text, 2.6 to 3.2 times, so that compressing and
	// decompressing cost what they cost on annotators' real data.
	Prose TextKind = iota
	// Repetitive is a handful of words repeated (Text): it deflates more
	// than 30 times, far more than any real text. It is kept to compare
	// with the figures measured on it before.
	Repetitive
)

// String is the kind's name, as ParseTextKind reads it.
func (k TextKind) String() string {
	switch k {
	case Prose:
		return "prose"
	case Repetitive:
		return "repetitive"
	}
	return fmt.Sprintf("TextKind(%d)", int(k))
}

// ParseTextKind reads a kind's name: "prose" or "repetitive".
func ParseTextKind(s string) (TextKind, error) {
	for _, k := range []TextKind{Prose, Repetitive} {
		if s == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind of text %q (want prose or repetitive)", s)
}

// TextOf is deterministic text of the kind, of about n characters.
func TextOf(kind TextKind, seed, n int) string {
	if kind == Repetitive {
		return Text(seed, n)
	}
	return ProseText(seed, n)
}

// ProseText is deterministic prose-like English of at least n characters
// (it ends with a whole sentence): sentences of words drawn with a
// Zipf-like frequency from a vocabulary of some thousands of word forms,
// with capitals, commas and full stops, numbers, section signs, case
// names and reporter citations such as "544 F.3d 112". The same seed gives
// the same text, on every platform and Go release: it is drawn from
// math/rand/v2's PCG, whose output is fixed, through arithmetic of this
// file's own.
func ProseText(seed, n int) string {
	g := prose{r: rand.New(rand.NewPCG(uint64(seed), 0x616e6e6f73686565)), b: make([]byte, 0, n+300)}
	for len(g.b) < n {
		if len(g.b) > 0 {
			g.b = append(g.b, ' ')
		}
		g.sentence()
	}
	return string(g.b)
}

type prose struct {
	r *rand.Rand
	b []byte
}

// below is a number in [0, n).
func (g *prose) below(n int) int { return int(g.r.Uint64() % uint64(n)) }

// chance is true with probability per/1000.
func (g *prose) chance(per int) bool { return g.below(1000) < per }

func (g *prose) str(s ...string) {
	for _, s := range s {
		g.b = append(g.b, s...)
	}
}

func (g *prose) num(n int) { g.b = strconv.AppendInt(g.b, int64(n), 10) }

// word writes a word form drawn by rank from the Zipf-like table.
func (g *prose) word() {
	u := g.r.Uint64()
	i := sort.Search(len(vocab.cum), func(i int) bool { return vocab.cum[i] > u })
	g.str(vocab.words[min(i, len(vocab.words)-1)])
}

// caseName writes the name of a case: "Kelford v. Marston".
func (g *prose) caseName() {
	g.str(names[g.below(len(names))], " v. ", names[g.below(len(names))])
}

// citation writes a reporter citation: volume, reporter, page.
func (g *prose) citation() {
	g.num(1 + g.below(999))
	g.str(" ", reporters[g.below(len(reporters))], " ")
	g.num(1 + g.below(1500))
}

func (g *prose) sentence() {
	start := len(g.b)
	switch {
	case g.chance(60):
		// A citation sentence: "See Kelford v. Marston, 544 F.3d 112,
		// 118 (2d Cir. 2008)."
		g.str("See ")
		g.caseName()
		g.str(", ")
		g.citation()
		g.str(", ")
		g.num(100 + g.below(900))
		g.str(" (", courts[g.below(len(courts))], " ")
		g.num(1960 + g.below(64))
		g.str(").")
		return
	case g.chance(40):
		g.str("In ")
		g.caseName()
		g.str(", ")
	}
	words := 5 + g.below(12) + g.below(12)
	for w := range words {
		if w > 0 {
			g.str(" ")
		}
		switch {
		case g.chance(6):
			g.citation()
		case g.chance(8):
			g.num(1950 + g.below(74)) // a year
		case g.chance(6):
			g.num(1 + g.below(60))
		case g.chance(3):
			g.str("§ ")
			g.num(1 + g.below(2500))
		case g.chance(4):
			g.str(names[g.below(len(names))])
		case g.chance(60):
			g.str(phrases[g.below(len(phrases))])
		default:
			g.word()
		}
		if w < words-1 && g.chance(70) {
			g.str(",")
		}
	}
	if g.chance(80) {
		g.str("; ")
		g.word()
		for range 3 + g.below(6) {
			g.str(" ")
			g.word()
		}
	}
	g.str(".")
	if c := g.b[start]; 'a' <= c && c <= 'z' {
		g.b[start] = c - 'a' + 'A'
	}
}

var (
	reporters = []string{"F.3d", "F.2d", "F.4th", "U.S.", "S. Ct.", "F. Supp. 2d", "F. Supp. 3d", "L. Ed. 2d", "N.E.2d", "A.3d", "P.3d", "So. 3d"}
	courts    = []string{"1st Cir.", "2d Cir.", "3d Cir.", "4th Cir.", "5th Cir.", "6th Cir.", "7th Cir.", "9th Cir.", "D.C. Cir.", "S.D.N.Y.", "N.D. Cal.", "D. Mass."}
)

// phrases are the stock phrases of the legal genre.
var phrases = []string{
	"the district court", "summary judgment", "as a matter of law", "arbitrary and capricious",
	"the plan administrator", "abuse of discretion", "in light of", "the court of appeals",
	"on the other hand", "with respect to", "in accordance with", "the Supreme Court",
	"it is well established that", "due process", "a genuine dispute of material fact",
	"the burden of proof", "for the reasons stated above", "we review de novo",
	"the record as a whole", "a conflict of interest", "the standard of review",
	"beyond a reasonable doubt", "pursuant to", "in the absence of", "to the extent that",
	"the trial court", "the moving party", "reasonable jury", "clearly erroneous",
	"the terms of the plan", "the medical evidence", "long-term disability benefits",
}

// Function words, most frequent first: the head of the Zipf table.
var functionWords = strings.Fields(`the of and to a in that is was for it as with be on not by this are or at from
which have an but has had were its their any such may shall would been no all other there if under upon than
where only when these those who also because whether into out so more must can could should however therefore
thus each both either neither nor same further before after within without between against during while
although since until unless whose what his her they he she we our them him one two three first second
court held plaintiff defendant claim claims case law state section evidence record decision district
party parties act statute rule order motion judgment appeal trial jury counsel notice`)

// Stems of content words, which make the body of the vocabulary: each verb
// gives four forms (-s, -ed, -ing), each noun two (-s), each adjective two
// (-ly).
var verbs = strings.Fields(`accept account act address admit adopt affirm allege allow amend answer appear
apply appoint argue arrest assert assess assign assist assume attach attempt attend authorize avoid award
bar bear benefit bind breach bring burden call carry cause certify challenge change charge cite claim
collect commit compel complain comply conclude conduct confer confirm consent consider constitute construe
contain contend contest continue contract control convey convict correct count cover credit cure damage
deal decide declare deem defend define delay deliver deny depend deprive describe design determine direct
disclose discover dismiss dispute distinguish divide document draft employ enact end enforce engage enter
entitle establish estimate examine except exclude excuse execute exercise exist expect explain express
extend fail file find follow forbid form found frame fund govern grant guarantee guide handle hear hold
identify ignore impose improve include incur indicate inform initiate injure inquire instruct insure intend
interpret intervene introduce invest invoke involve issue join judge justify keep know lack lease leave
license limit list litigate lose maintain manage mark matter mean measure meet mention merge mislead
modify move need negotiate note notify object oblige observe obtain occur offer omit oppose order own
pay perform permit persuade place plead pledge possess practice present preserve presume prevail prevent
proceed process produce prohibit promise protect prove provide publish punish purchase pursue qualify
question raise reach read realize reason recall receive recognize recommend record recover refer reflect
refuse regard register regulate reject relate release rely remain remand remedy remove render repeal
report represent request require rescind reserve resolve respond rest restrict result retain return
reveal reverse review revoke rule satisfy schedule search secure seek seize sell send serve settle show
sign specify state stay submit succeed sue suffer suggest supply support suppress sustain take tender
terminate testify trade transfer treat trust turn understand uphold urge use vacate value vest violate
waive want warn weigh withdraw witness work write yield
abandon abuse accelerate accommodate accrue acquire adhere adjust administer advise advocate aggregate
alter analyze anticipate appeal approve arise attribute balance borrow calculate cancel clarify close
combine compare compensate compute concede condemn confine connect conserve consolidate consult
contribute convert cooperate coordinate create decline deduct defer delegate demand demonstrate deposit
derive detain devote differ discharge discuss display dissolve distribute educate eliminate emphasize
encourage endorse ensure evaluate evaluate exceed exhaust expand expire exploit export fix formulate
generate harass hire illustrate implement import infer inherit inspect interfere investigate justify
label lend link locate mail minimize monitor mortgage obstruct operate originate overrule overturn
participate pass pause perceive persist plan predict prefer prepare price proceed prosecute purport
reconcile reduce reimburse reinstate remind renew repair replace resign restore retire revise sanction
share shift signal solicit sponsor stipulate subsidize substitute summarize supervise surrender
suspend tax test track train transmit undertake verify visit vote weaken`)

var nouns = strings.Fields(`accident action administrator adviser agency agent agreement amount analysis appellant appellee
applicant arbitration arbitrator assessment asset attorney authority bank bankruptcy beneficiary board
bond building business buyer capacity capital category circuit citizen city clause client coverage
commission committee company complaint condition conference conflict congress consequence contractor
corporation county creditor custody customer danger deadline debt debtor deduction default defense
deference delivery department deposit detention director discretion discrimination dispute doctrine
duty election employee employer entity equity estate exception exhibit expense expert facility fact
factor family fee fiduciary finding firm force fraud government guardian harm hearing history husband
income individual injury insurer interest investigation investor issue jurisdiction landlord language
lender liability lien loan loss manufacturer market medical member method minority mortgage negligence
obligation officer opinion owner panel partner partnership patent patient payment penalty pension
period person petition petitioner physician plan policy power premium principle prison prisoner
privilege procedure proceeding program property prosecutor provision purpose question reason recovery
regulation relief remedy rent respondent restitution right risk salary sale school security seller
sentence service share shareholder standard student subsidiary summary supervisor tax taxpayer tenant
term testimony theory title town trademark transaction trustee union vehicle verdict victim warrant
warranty wife worker
absence acceptance access accuracy acquisition adjustment admission advantage affidavit allegation
allocation allowance alternative amendment appearance approach approval area argument arrangement
article aspect assignment assumption attention audit balance ballot basis behalf benefit bill
boundary branch budget campaign candidate certificate chamber charity charter child claimant
collateral commerce communication community compensation competition component concern conduct
confidence consent consideration conspiracy constitution consumer content context contribution
conviction copy correspondence cost council country crime criterion culture data date
decree defect definition delay demand deposition design detail device difference disability
disclosure distribution document draft effect effort element emergency employment enterprise
entry environment error event examination exchange existence expectation experience explanation
exposure extent failure feature file fund goal goods grievance ground group guideline hospital
household identity impact implication incident increase industry influence information injunction
instrument insurance intent interpretation inventory judge justice knowledge labor lawsuit lawyer
lease legislature letter level license limitation list litigation location machine majority meaning
measure meeting memorandum message misconduct mistake month motive nature network notice number
objection occasion offense offer office operation option outcome paragraph payment percentage
permit phrase place portion position practice premises presumption price probation problem product
profession profit proof protection public quality quantity rate ratio reference refund region
relationship reliance report representation requirement reservation residence resolution resource
response result review rights road role safety sanction scope seizure sequence settlement site
situation source speech statement status step stock storage structure subject substance suit
supplier support surface system technology territory text threshold time trade treatment trial
trust type value version view violation vote waiver week witness year`)

var adjectives = strings.Fields(`able actual adequate adverse affirmative ambiguous apparent applicable appropriate arbitrary available
capricious careful certain civil clear common complete constitutional contrary criminal current direct
due effective entire equal equitable essential exclusive explicit express fair false federal final
financial foreign formal frivolous full general genuine good great harmless high immediate implicit
important improper independent initial insufficient intentional joint judicial lawful legal legitimate
likely local long low material mere narrow necessary new normal novel objective obvious official
ordinary original particular personal plain possible potential present previous primary prior private
procedural proper public reasonable relevant reliable separate serious significant similar simple
single special specific strict subject substantial substantive sufficient temporary true ultimate
unconstitutional unlawful unreasonable valid various voluntary written wrong`)

// names are pseudo-surnames for case names, made of syllables.
var names = func() []string {
	first := strings.Fields("Al Bar Car Dal El Fair Gar Hal Ing Jar Kel Lan Mar Nor Os Pen Quin Ros Sal Tal Ul Van Wal Yor")
	second := strings.Fields("ton ley wick man son ford ber ding ham ner ris well field stead more land ston croft by")
	var out []string
	for i, f := range first {
		for j, s := range second {
			if (i+j)%3 != 0 {
				out = append(out, f+s)
			}
		}
	}
	return out
}()

// vocab is the vocabulary in rank order with the cumulative Zipf weights
// scaled to 2^64: word i is drawn when a uniform uint64 falls below cum[i]
// and not below cum[i-1].
var vocab = func() (v struct {
	words []string
	cum   []uint64
}) {
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	for _, w := range functionWords {
		add(w)
	}
	// The forms of the stems, interleaved so that each frequency band
	// holds words of every kind: first every stem, then the commoner
	// forms, and so on.
	for _, forms := range []struct {
		stems  []string
		suffix string
	}{
		{verbs, ""}, {nouns, ""}, {adjectives, ""},
		{nouns, "s"}, {verbs, "ed"}, {verbs, "s"}, {verbs, "ing"}, {adjectives, "ly"},
	} {
		for _, s := range forms.stems {
			if forms.suffix == "" {
				add(s)
			} else {
				add(inflect(s, forms.suffix))
			}
		}
	}
	// Zipf's law, the weight of rank r being 1/(r+2.7), in integers so
	// that the table is the same on every platform.
	w := make([]uint64, len(v.words))
	var total uint64
	for r := range w {
		w[r] = (10 << 40) / uint64(10*r+27)
		total += w[r]
	}
	v.cum = make([]uint64, len(w))
	var acc uint64
	for r := range w {
		acc += w[r]
		if acc < total {
			// acc/total scaled to 2^64.
			v.cum[r], _ = bits.Div64(acc, 0, total)
		}
	}
	v.cum[len(w)-1] = ^uint64(0)
	return v
}()

// inflect adds a suffix with English's commonest spelling rules.
func inflect(stem, suffix string) string {
	last := stem[len(stem)-1]
	switch {
	case suffix == "s" && (last == 's' || last == 'x' || strings.HasSuffix(stem, "sh") || strings.HasSuffix(stem, "ch")):
		return stem + "es"
	case suffix == "s" && last == 'y' && !isVowel(stem[len(stem)-2]):
		return stem[:len(stem)-1] + "ies"
	case suffix == "ly" && last == 'e':
		return stem[:len(stem)-1] + "y"
	case suffix != "s" && suffix != "ly" && suffix != "ment" && last == 'e':
		return stem[:len(stem)-1] + suffix
	case (suffix == "ed" || suffix == "er") && last == 'y' && !isVowel(stem[len(stem)-2]):
		return stem[:len(stem)-1] + "i" + suffix
	}
	return stem + suffix
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
