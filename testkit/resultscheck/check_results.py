#!/usr/bin/python3
"""Independent reference implementation of the statistics of SPEC.md "Results".

Written from the product specification (section "Results") alone (not from the Go `results` package)
so that a Go test can check `annosheet results --json`: point estimates must
agree exactly, bootstrap intervals and permutation p-values within Monte
Carlo tolerance (this script draws with Python's random.Random(seed), which
does not give the Go code's draws). Standard library only.

How to run (README)
-------------------

    /usr/bin/python3 testkit/resultscheck/check_results.py \
        --records RECORDS.jsonl [--records MORE.jsonl] \
        --template TEMPLATE.json \
        --design legal-gaps|legal-gaps-unpaired|preference|all|given \
        [--groups GROUPS.json] \
        [--gold GOLD.jsonl] [--level 0.95] [--resamples 2000] \
        [--permutations 10000] [--seed 1]

    TEMPLATE.json is what `annosheet templates show NAME --json` prints.
    The JSON report (schema annosheet.results/1) goes to stdout; warnings
    about records it could not place go to stderr. Exit 0, or 1 on bad
    input, 2 on bad usage. `selftest.py` beside it checks the methods on
    hand-computed cases.

Designs (how groups are made)
-----------------------------
  legal-gaps  group "system" = the record's item id (its unit id when it
              has no item) before the first "-" (regex ^([A-Za-z0-9.]+)-);
              paired: the item of the paired design is the id's trailing
              number (regex -([0-9]+)$).
  preference  group "candidate" of a shuffled template: the k-th question
              of every shuffle.candidates[] is one entry (named after the
              first candidate's question, `questions` listing all in
              candidate order); paired by unit. A shuffle.choices question
              gives `win_rate` per candidate (option null) and `share` with
              group null for its options that are not candidates. Other
              questions are reported ungrouped (by null, group null).
  legal-gaps-unpaired
              the groups of legal-gaps, not paired (units resampled and
              labels shuffled within / between groups).
  all         one group "all" (by null), unpaired (qa-span-errors).
  given       each unit's group from --groups FILE ({"by": NAME, "units":
              {unit: group}}), unpaired (factgenie-meta-eval's evaluators,
              worked out by the caller from the study's key).

Statistics (SPEC "Results")
---------------------------
  choice, bool  share of units per option (bool: option "true")
  multi         share of units selecting each option
  scale         mean and median over answered units (the template's
                `unanswered` value is no answer)
  span          spans_per_unit overall (option null) and per label, and
                units_with_span (share, option null)
  text          answered (share; a non-blank string is an answer)
  evidence      none
A unit's value is the mean over its annotators' complete records of the
record's value (an indicator for shares); every unit weighs the same. With
gold (records of annotator "gold", or --gold FILE) the gold record's value
is the unit's value.

Order (deterministic)
---------------------
  questions     template order (a candidate entry at its first question)
  estimates     by statistic (type's order above), then option (null first,
                then template order), then group (sorted by name, bytewise)
  comparisons   by statistic, then option, then pair (a, b) for every
                a < b of the sorted groups; difference = A - B
  sums          left to right: units in bytewise order of their item key
                (paired) or unit id; a unit's annotators in bytewise order
                of annotator id. Median of an even count = (a + b) / 2.

Methods and their sources
-------------------------
  * Percentile bootstrap interval (Efron & Tibshirani 1993, An Introduction
    to the Bootstrap, ch. 13): the level/2 tails of the sorted resampled
    statistics, read with quantile type 7 (Hyndman & Fan 1996, Sample
    quantiles in statistical packages; numpy's default "linear"):
    h = (n-1)p, q = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
  * Permutation p-value p = (k + 1)/(P + 1) (Phipson & Smyth 2010,
    Permutation p-values should never be zero), k counting permutations
    with |difference| >= |observed| (within 1e-12 * max(1, |observed|), so
    that float noise in equal sums is not read as a difference).
    Paired: A and B swapped within each item with probability 1/2;
    unpaired: group labels shuffled among the pooled units of A and B.
  * Holm (1979, A simple sequentially rejective multiple test procedure)
    step-down adjustment over the pairs of one (question, statistic,
    option), made monotone and capped at 1.
  * One random.Random(seed) for the whole run, drawn from in output order.
"""

import argparse
import json
import math
import random
import re
import sys

SCHEMA = "annosheet.results/1"
GOLD = "gold"

# --------------------------------------------------------------------------
# Plain statistics. Sums are explicit left-to-right loops (not sum(), which
# in Python >= 3.12 compensates), as a Go `for` loop adds.


def add_up(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def mean(xs):
    """Arithmetic mean; None for no value."""
    if not xs:
        return None
    return add_up(xs) / len(xs)


def median(xs):
    """Median; the mean (a + b) / 2 of the two middle values for an even count."""
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    m = n // 2
    if n % 2 == 1:
        return float(s[m])
    return (s[m - 1] + s[m]) / 2.0


# statistic name -> function over the units' values
STATISTICS = {
    "share": mean,
    "win_rate": mean,
    "mean": mean,
    "median": median,
    "answered": mean,
    "spans_per_unit": mean,
    "units_with_span": mean,
}


def quantile_linear(sorted_xs, p):
    """Quantile type 7 of Hyndman & Fan (1996), numpy's default "linear":
    h = (n-1)p, linear interpolation between the order statistics around h."""
    n = len(sorted_xs)
    if n == 0:
        return None
    if p <= 0:
        return float(sorted_xs[0])
    if p >= 1:
        return float(sorted_xs[-1])
    h = (n - 1) * p
    lo = int(math.floor(h))
    if lo >= n - 1:
        return float(sorted_xs[-1])
    frac = h - lo
    a, b = sorted_xs[lo], sorted_xs[lo + 1]
    return a + frac * (b - a)


def percentile_interval(values, level):
    """Percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13) of
    the resampled statistics `values` at confidence `level`."""
    s = sorted(values)
    tail = (1.0 - level) / 2.0
    return [quantile_linear(s, tail), quantile_linear(s, 1.0 - tail)]


def holm(ps):
    """Holm (1979) step-down adjusted p-values, in the order given:
    the i-th smallest (1-based) becomes max over j <= i of (m - j + 1) p_(j),
    capped at 1. None entries are skipped (and stay None)."""
    idx = [i for i, p in enumerate(ps) if p is not None]
    idx.sort(key=lambda i: ps[i])  # stable: ties keep their order
    m = len(idx)
    out = [None] * len(ps)
    running = 0.0
    for rank, i in enumerate(idx):
        adj = min(1.0, (m - rank) * ps[i])
        running = max(running, adj)  # monotone
        out[i] = running
    return out


# --------------------------------------------------------------------------
# Resampling. `stat` is a function of a list of unit values.


def bootstrap_estimate(xs, stat, resamples, level, rng):
    """Percentile interval of stat(xs), the units resampled with
    replacement (for a paired design these are the items that have the
    group: each item holds one unit of the group)."""
    n = len(xs)
    draws = []
    for _ in range(resamples):
        draws.append(stat(rng.choices(xs, k=n)))
    return percentile_interval(draws, level)


def bootstrap_difference_paired(a, b, stat, resamples, level, rng):
    """Interval of stat(A) - stat(B); items resampled, each item's A and B
    kept together (a[i] and b[i] are one item)."""
    n = len(a)
    idx = range(n)
    draws = []
    for _ in range(resamples):
        pick = rng.choices(idx, k=n)
        draws.append(stat([a[i] for i in pick]) - stat([b[i] for i in pick]))
    return percentile_interval(draws, level)


def bootstrap_difference_unpaired(a, b, stat, resamples, level, rng):
    """Interval of stat(A) - stat(B); units resampled within each group."""
    na, nb = len(a), len(b)
    draws = []
    for _ in range(resamples):
        draws.append(stat(rng.choices(a, k=na)) - stat(rng.choices(b, k=nb)))
    return percentile_interval(draws, level)


def _extreme(d, observed_abs):
    return abs(d) >= observed_abs - 1e-12 * max(1.0, observed_abs)


def permutation_p_paired(a, b, stat, permutations, rng):
    """Two-sided permutation p (Phipson & Smyth 2010: (k+1)/(P+1)); each
    permutation swaps a[i] and b[i] with probability 1/2."""
    observed = abs(stat(a) - stat(b))
    n = len(a)
    k = 0
    for _ in range(permutations):
        pa = list(a)
        pb = list(b)
        for i in range(n):
            if rng.random() < 0.5:
                pa[i], pb[i] = b[i], a[i]
        if _extreme(stat(pa) - stat(pb), observed):
            k += 1
    return (k + 1) / (permutations + 1)


def permutation_p_unpaired(a, b, stat, permutations, rng):
    """Two-sided permutation p ((k+1)/(P+1)); each permutation shuffles the
    group labels among the pooled units of A and B (sizes kept)."""
    observed = abs(stat(a) - stat(b))
    pooled = list(a) + list(b)
    na = len(a)
    k = 0
    for _ in range(permutations):
        rng.shuffle(pooled)
        if _extreme(stat(pooled[:na]) - stat(pooled[na:]), observed):
            k += 1
    return (k + 1) / (permutations + 1)


# --------------------------------------------------------------------------
# Template: the entries reported, and what one record gives for each.


class Entry:
    """One reported question: name, type, the template question, and how a
    record's values become (group, {(statistic, option): value}) pairs."""

    def __init__(self, name, qtype, qdef):
        self.name = name
        self.type = qtype
        self.qdef = qdef
        self.kind = "plain"  # plain | candidates | best_of
        self.questions = [name]  # the template questions it reads
        self.candidates = []  # candidate codes (candidates, best_of)
        self.block_spans = False  # spans of a block's rows (records' spans[])
        self.labels = []  # span label codes
        self.grouped = True  # plain: grouped by the design's group


def option_codes(q):
    return [str(o["code"]) for o in (q.get("options") or [])]


def statistics_of(entry):
    """[(statistic, option, grouped)] in report order."""
    t = entry.type
    if entry.kind == "best_of":
        out = [("win_rate", None, True)]
        for c in option_codes(entry.qdef):
            if c not in entry.candidates:
                out.append(("share", c, False))
        return out
    g = entry.grouped
    if t in ("choice", "multi"):
        return [("share", c, g) for c in option_codes(entry.qdef)]
    if t == "bool":
        return [("share", "true", g)]
    if t == "scale":
        return [("mean", None, g), ("median", None, g)]
    if t == "span":
        return ([("spans_per_unit", None, g)]
                + [("spans_per_unit", c, g) for c in entry.labels]
                + [("units_with_span", None, g)])
    if t == "text":
        return [("answered", None, g)]
    return []


def build_entries(template, design):
    qs = template.get("questions") or []
    by_name = {q["name"]: q for q in qs}
    rows = template.get("rows") or {}
    block = rows.get("per") == "block"
    first_row_span = None
    if block:
        for q in qs:
            if q.get("type") == "span" and q.get("scope") != "block":
                first_row_span = q["name"]
                break
    shuffle = template.get("shuffle") or {}
    cands = (shuffle.get("candidates") or []) if design == "preference" else []
    choices = (shuffle.get("choices") or []) if design == "preference" else []
    cand_codes = [str(c["code"]) for c in cands]
    # k-th question of every candidate -> one entry at the first candidate's
    kth = {}
    consumed = set()
    if cands:
        depth = min(len(c.get("questions") or []) for c in cands)
        for k in range(depth):
            names = [c["questions"][k] for c in cands]
            kth[names[0]] = names
            consumed.update(names)
    entries = []
    for q in qs:
        name, qtype = q["name"], q.get("type")
        if qtype == "evidence":
            continue  # no statistic
        if block and q.get("scope") != "block" and qtype != "span":
            continue  # asked on every row of a block: no unit-level value
        if name in kth:
            e = Entry(name, qtype, q)
            e.kind = "candidates"
            e.questions = kth[name]
            e.candidates = cand_codes
            entries.append(e)
            continue
        if name in consumed:
            continue
        if name in choices and qtype == "choice" and any(
                c in cand_codes for c in option_codes(q)):
            e = Entry(name, qtype, q)
            e.kind = "best_of"
            e.candidates = [c for c in cand_codes if c in option_codes(q)]
            entries.append(e)
            continue
        if block and qtype == "span" and name == first_row_span and rows.get("spans"):
            e = Entry(rows["spans"], qtype, q)
            e.block_spans = True
            label_q = by_name.get(rows.get("label") or "")
            e.labels = option_codes(label_q) if label_q else []
            e.questions = [name]
        else:
            e = Entry(name, qtype, q)
            e.labels = option_codes(q) if qtype == "span" else []
        e.grouped = design != "preference"
        entries.append(e)
    return entries


def scale_value(q, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if "unanswered" in q and v == q["unanswered"]:
        return None
    return float(v)


def span_objects(v):
    if isinstance(v, dict):
        return [v]
    if isinstance(v, list):
        return [s for s in v if isinstance(s, dict)]
    return []


def has_offsets(s):
    return s.get("start") is not None and s.get("end") is not None


def span_label(s):
    for key in ("code", "label"):
        if s.get(key) not in (None, ""):
            return str(s[key])
    return None


def measures(entry, qname, rec):
    """{(statistic, option): value} that one record gives for question
    qname of the entry (plain and candidate entries), or None when it gives
    no answer."""
    q = entry.qdef
    values = rec.get("values") or {}
    v = values.get(qname)
    t = entry.type
    if t == "choice":
        if v is None:
            return None
        v = str(v)
        return {("share", c): (1.0 if v == c else 0.0) for c in option_codes(q)}
    if t == "multi":
        if not isinstance(v, list):
            return None
        chosen = set(str(x) for x in v)
        return {("share", c): (1.0 if c in chosen else 0.0) for c in option_codes(q)}
    if t == "bool":
        if isinstance(v, str) and v.lower() in ("true", "false"):
            v = v.lower() == "true"
        if not isinstance(v, bool):
            return None
        return {("share", "true"): 1.0 if v else 0.0}
    if t == "scale":
        x = scale_value(q, v)
        if x is None:
            return None
        return {("mean", None): x, ("median", None): x}
    if t == "text":
        # every complete record answers "was it answered?"
        ok = isinstance(v, str) and v.strip() != ""
        return {("answered", None): 1.0 if ok else 0.0}
    if t == "span":
        spans = []
        if entry.block_spans:
            for s in rec.get("spans") or []:
                if s.get("question") in (None, "", entry.name, qname):
                    spans.append(s)
        else:
            spans.extend(span_objects(v))
            for row in rec.get("spans") or []:  # a row-scoped span of a block
                spans.extend(span_objects((row.get("values") or {}).get(qname)))
        spans = [s for s in spans if has_offsets(s)]  # no offsets: no span
        m = {("spans_per_unit", None): float(len(spans)),
             ("units_with_span", None): 1.0 if spans else 0.0}
        for c in entry.labels:
            m[("spans_per_unit", c)] = float(sum(1 for s in spans if span_label(s) == c))
        return m
    return None


def unresolved(rec, qname):
    """A gold record leaves qname undecided: listed in "unresolved", or its
    provenance is unresolved (or carried: annotators differ and the gold
    record holds no value)."""
    if qname in (rec.get("unresolved") or []):
        return True
    p = (rec.get("provenance") or {}).get(qname)
    return isinstance(p, dict) and p.get("kind") in ("unresolved", "carried")


def observations(entry, rec, group, is_gold):
    """[(group, measures)] one record gives for an entry, and the number of
    its values left out as unresolved gold."""
    out, unres = [], 0
    if entry.kind == "candidates":
        for c, qn in zip(entry.candidates, entry.questions):
            if is_gold and unresolved(rec, qn):
                unres += 1
                continue
            m = measures(entry, qn, rec)
            if m is not None:
                out.append((c, m))
        return out, unres
    qn = entry.questions[0]
    if is_gold and unresolved(rec, qn):
        return out, 1
    if entry.kind == "best_of":
        v = (rec.get("values") or {}).get(qn)
        if v is None:
            return out, 0
        v = str(v)
        for c in entry.candidates:
            out.append((c, {("win_rate", None): 1.0 if v == c else 0.0}))
        others = {("share", c): (1.0 if v == c else 0.0)
                  for c in option_codes(entry.qdef) if c not in entry.candidates}
        if others:
            out.append((None, others))
        return out, 0
    m = measures(entry, qn, rec)
    if m is not None:
        out.append((group if entry.grouped else None, m))
    return out, 0


# --------------------------------------------------------------------------
# Designs


class Design:
    def __init__(self, name):
        self.name = name
        self.by = None
        self.paired = False
        self.group_re = None
        self.pair_re = None

    def place(self, rec):
        """(group, item) of a record's unit for plain entries; group None when
        it cannot be placed."""
        unit = str(rec.get("unit"))
        ident = str(rec.get("item") or unit)
        if self.name in ("legal-gaps", "legal-gaps-unpaired"):
            g = self.group_re.search(ident)
            if not self.paired:
                return (g.group(1) if g else None), unit
            if not g:
                return None, unit
            p = self.pair_re.search(ident)
            return g.group(1), (p.group(1) if p else ident)
        if self.name == "all":
            return "all", unit
        if self.name == "given":
            return self.groups.get(unit), unit
        return None, unit  # preference: the unit is the item


def make_design(name, template, groups=None):
    d = Design(name)
    if name in ("legal-gaps", "legal-gaps-unpaired"):
        d.by, d.paired = "system", name == "legal-gaps"
        d.group_re = re.compile(r"^([A-Za-z0-9.]+)-")
        d.pair_re = re.compile(r"-([0-9]+)$")
    elif name == "preference":
        if not (template.get("shuffle") or {}).get("candidates"):
            raise ValueError("design preference needs a template with shuffle.candidates")
        d.by, d.paired = "candidate", True
    elif name == "all":
        d.by, d.paired = None, False
    elif name == "given":
        # Each unit's group as the caller worked it out (--groups), not
        # paired: factgenie-meta-eval's evaluators by their real names.
        if groups is None:
            raise ValueError("design given needs --groups FILE")
        d.by, d.paired, d.groups = groups.get("by"), False, groups["units"]
    else:
        raise ValueError("unknown design %r (legal-gaps, legal-gaps-unpaired, preference, all, given)" % name)
    return d


# --------------------------------------------------------------------------
# The report


def warn(msg):
    print("check_results: " + msg, file=sys.stderr)


def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError("%s:%d: %s" % (path, n, e))
    return out


def results(records, gold_records, template, design_name, level=0.95,
            resamples=2000, permutations=10000, seed=1, groups=None):
    """The annosheet.results/1 report (a dict) of the records."""
    design = make_design(design_name, template, groups)
    entries = build_entries(template, design_name)
    tname = template.get("name")
    rng = random.Random(seed)

    annot, gold = [], {}
    controls = set()
    for r in records:
        if r.get("control"):
            controls.add(r.get("unit"))
    for r in list(records) + [dict(g, annotator=GOLD) for g in gold_records]:
        if tname and (r.get("template") or {}).get("name") not in (None, tname):
            warn("unit %s: template %s, not %s; skipped" % (r.get("unit"), (r.get("template") or {}).get("name"), tname))
            continue
        if r.get("control") or r.get("unit") in controls:
            continue  # controls never count
        if r.get("shuffled") or r.get("opaque_ids"):
            warn("unit %s: shuffled or opaque record (pull with the manifest)" % r.get("unit"))
        if r.get("annotator") == GOLD:
            if r.get("unit") in gold:
                warn("unit %s: two gold records; the later one is used" % r.get("unit"))
            gold[r.get("unit")] = r
        else:
            annot.append(r)
    basis = GOLD if gold else "annotators"

    partial = sum(1 for r in annot if r.get("status") == "partial")
    empty = sum(1 for r in annot if r.get("status") == "empty")
    all_units = sorted(set(str(r.get("unit")) for r in annot))
    if basis == GOLD:
        counted = [gold[u] for u in sorted(gold, key=str)]
        no_gold = sum(1 for u in all_units if u not in gold)
    else:
        counted = [r for r in annot if r.get("status") == "complete"]
        no_gold = 0
    # a unit's annotators in bytewise order of their ids
    counted.sort(key=lambda r: (str(r.get("unit")), str(r.get("annotator"))))

    # the design's groups: those of every record read (any status)
    if design.name == "preference":
        groups = sorted(str(c["code"]) for c in template["shuffle"]["candidates"])
    else:
        seen = set()
        for r in annot + list(gold.values()):
            g, _ = design.place(r)
            if g is None:
                warn("unit %s: no group in its id; skipped" % r.get("unit"))
            else:
                seen.add(g)
        groups = sorted(seen)

    questions = []
    for e in entries:
        # cells[group][item][unit] = [measures of each record]
        cells = {}
        unres = 0
        for r in counted:
            g0, item = design.place(r)
            if design.name != "preference" and g0 is None:
                continue
            obs, u = observations(e, r, g0, basis == GOLD)
            unres += u
            for g, m in obs:
                cells.setdefault(g, {}).setdefault(item, {}).setdefault(str(r.get("unit")), []).append(m)
        stats = statistics_of(e)
        # table[(stat, opt)][group][item] = the item's value for the group
        tables = {}
        for (stat, opt, grouped) in stats:
            tab = {}
            for g, items in cells.items():
                if (g is not None) != grouped:
                    continue
                for item, units in items.items():
                    if len(units) > 1:
                        warn("%s: group %s, item %s has %d units; their mean is used" % (e.name, g, item, len(units)))
                    uvals = [mean([m[(stat, opt)] for m in ms]) for _, ms in sorted(units.items())]
                    tab.setdefault(g, {})[item] = mean(uvals)
            tables[(stat, opt)] = tab

        grouped_entry = any(gr for _, _, gr in stats)
        paired = design.paired and grouped_entry
        entry_groups = groups if grouped_entry else []
        unpaired = 0
        if paired and stats:
            # items with a value in some group but not in every group
            first = next(tables[(s, o)] for s, o, gr in stats if gr)
            items = set()
            for g in entry_groups:
                items |= set(first.get(g, {}))
            unpaired = sum(1 for i in items if any(i not in first.get(g, {}) for g in entry_groups))

        estimates, comparisons = [], []
        for (stat, opt, grouped) in stats:
            fn = STATISTICS[stat]
            tab = tables[(stat, opt)]
            for g in (entry_groups if grouped else [None]):
                col = tab.get(g, {})
                xs = [col[i] for i in sorted(col)]
                est = {"group": g, "statistic": stat, "option": opt,
                       "value": fn(xs), "units": len(xs), "ci": None}
                if not xs:
                    est["note"] = "no unit with a value"
                elif len(xs) < 2:
                    # One unit: every resample is that unit, and a zero-width
                    # interval would claim a certainty nobody has.
                    est["note"] = "no interval: fewer than two units"
                elif resamples < 1:
                    est["note"] = "no resamples"
                else:
                    est["ci"] = bootstrap_estimate(xs, fn, resamples, level, rng)
                estimates.append(est)
            if not grouped:
                continue
            block = []
            for ai, a in enumerate(entry_groups):
                for b in entry_groups[ai + 1:]:
                    ca, cb = tab.get(a, {}), tab.get(b, {})
                    cmp_ = {"a": a, "b": b, "statistic": stat, "option": opt,
                            "difference": None, "ci": None, "p": None, "p_holm": None}
                    if paired:
                        common = sorted(set(ca) & set(cb))
                        xa = [ca[i] for i in common]
                        xb = [cb[i] for i in common]
                        ok = bool(common)
                    else:
                        xa = [ca[i] for i in sorted(ca)]
                        xb = [cb[i] for i in sorted(cb)]
                        ok = bool(xa) and bool(xb)
                    if not ok:
                        cmp_["note"] = ("no item has both groups" if paired
                                        else "a group has no unit with a value")
                    else:
                        cmp_["difference"] = fn(xa) - fn(xb)
                        if len(xa) < 2 or len(xb) < 2:
                            cmp_["note"] = "no interval: fewer than two items or units"
                        elif resamples >= 1:
                            boot = bootstrap_difference_paired if paired else bootstrap_difference_unpaired
                            cmp_["ci"] = boot(xa, xb, fn, resamples, level, rng)
                        else:
                            cmp_["note"] = "no resamples"
                        perm = permutation_p_paired if paired else permutation_p_unpaired
                        cmp_["p"] = perm(xa, xb, fn, permutations, rng)
                    block.append(cmp_)
            for c, adj in zip(block, holm([c["p"] for c in block])):
                c["p_holm"] = adj
            comparisons.extend(block)

        q = {"question": e.name, "type": e.type}
        if e.kind == "candidates":
            q["questions"] = list(e.questions)
        q.update({"by": design.by if grouped_entry else None, "paired": paired,
                  "estimates": estimates, "comparisons": comparisons,
                  "left_out": {"partial": partial, "empty": empty,
                               "unresolved": unres, "no_gold": no_gold,
                               "unpaired": unpaired}})
        questions.append(q)

    return {"schema": SCHEMA,
            "template": {"name": tname, "version": template.get("version")},
            "basis": basis,
            "params": {"level": level, "resamples": resamples,
                       "permutations": permutations, "seed": seed},
            "questions": questions}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", action="append", required=True,
                    help="canonical records (JSON Lines); may repeat")
    ap.add_argument("--template", required=True,
                    help="the template as `annosheet templates show NAME --json` prints it")
    ap.add_argument("--design", required=True, choices=["legal-gaps", "legal-gaps-unpaired", "preference", "all", "given"])
    ap.add_argument("--groups", help='design given: {"by": NAME, "units": {unit: group}} (JSON)')
    ap.add_argument("--gold", help="gold records (JSON Lines)")
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--permutations", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if not 0 < a.level < 1 or a.resamples < 0 or a.permutations < 0:
        ap.error("--level must be in (0, 1); --resamples and --permutations >= 0")
    try:
        records = []
        for p in a.records:
            records.extend(read_jsonl(p))
        gold = read_jsonl(a.gold) if a.gold else []
        with open(a.template, encoding="utf-8") as f:
            template = json.load(f)
        groups = None
        if a.groups:
            with open(a.groups, encoding="utf-8") as f:
                groups = json.load(f)
        out = results(records, gold, template, a.design, a.level,
                      a.resamples, a.permutations, a.seed, groups)
    except (OSError, ValueError, KeyError) as e:
        warn(str(e))
        return 1
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
