package agreement

import (
	"math/rand/v2"
	"testing"
)

// benchQuestion times a question's Result on 100,000 units × 3
// annotators of random values (5% missing): every metric, per pair too,
// and the units in detail.
func benchQuestion(b *testing.B, seed uint64, values int, value func(*rand.Rand, int) *Value, run func(Table) Result) {
	table := randomTable(rand.New(rand.NewPCG(seed, 1)), 100_000, 3, values, 0.05, value)
	b.ReportAllocs()
	for b.Loop() {
		run(table)
	}
}

func BenchmarkScale100k(b *testing.B) {
	benchQuestion(b, 61, 5, levelValue, func(t Table) Result { return must(Scale(bg, t, levels1to(5), Options{})) })
}

// BenchmarkMulti100k: four options, 16 distinct sets.
func BenchmarkMulti100k(b *testing.B) {
	benchQuestion(b, 63, 16, subsetValue, func(t Table) Result { return must(Multi(bg, t, letters(4), Options{})) })
}

// BenchmarkEvidence100k: sets of one to three sentences among 30, some
// thousands of distinct sets.
func BenchmarkEvidence100k(b *testing.B) {
	benchQuestion(b, 69, 27_000, sentencesValue, func(t Table) Result { return must(Evidence(bg, t, Options{})) })
}

func BenchmarkChoice100k(b *testing.B) {
	benchQuestion(b, 65, 4, letterValue, func(t Table) Result { return must(Choice(bg, t, letters(4), Options{})) })
}

// BenchmarkAlphaOrdinal100k is α alone on 100,000 units × 3 annotators,
// already coded.
func BenchmarkAlphaOrdinal100k(b *testing.B) {
	r := ScaleRatings(randomTable(rand.New(rand.NewPCG(67, 68)), 100_000, 3, 5, 0.05, levelValue), levels1to(5))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := KrippendorffAlpha(r, Ordinal); err != nil {
			b.Fatal(err)
		}
	}
}
