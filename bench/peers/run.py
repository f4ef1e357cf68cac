"""The side-by-side comparison of annosheet with its peers; see README.md.

    /usr/bin/python3 bench/peers/run.py [ROWS...] [--text prose|repetitive]
        [--reps 3] [--dir DIR] [--peers xlsxwriter,openpyxl,exceljs]

Every task is a separate process, timed from its start to its end (so
start-up counts for all) with its peak resident memory (ru_maxrss of
wait4). annosheet and each peer take turns, pair by pair, --reps times,
the order within a pair swapped each time; the table gives medians."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"  # Debian's, with openpyxl and XlsxWriter

WRITERS = {
    "xlsxwriter": ("XlsxWriter (constant_memory)", [PY, os.path.join(HERE, "write_xlsxwriter.py")]),
    "openpyxl": ("openpyxl (write_only)", [PY, os.path.join(HERE, "write_openpyxl.py")]),
    "exceljs": ("exceljs (stream WorkbookWriter)", ["node", os.path.join(HERE, "write_exceljs.mjs")]),
}
READERS = {
    "openpyxl": ("openpyxl (read_only)", [PY, os.path.join(HERE, "read_openpyxl.py")]),
    "exceljs": ("exceljs (stream WorkbookReader)", ["node", os.path.join(HERE, "read_exceljs.mjs")]),
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    """Runs an untimed step, failing loudly."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit("failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def measure(cmd, cwd=None):
    """Runs cmd; returns (wall seconds, peak RSS in MB, CPU seconds)."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err.read().decode(errors="replace")))
    return wall, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime  # ru_maxrss is in KiB on Linux


def available(peers):
    """The peers installed here, saying why others are left out."""
    ok = []
    for name in peers:
        if name in ("xlsxwriter", "openpyxl"):
            if subprocess.run([PY, "-c", "import " + name], capture_output=True).returncode != 0:
                log("skipping %s: %s cannot import it (apt-get install python3-%s)" % (name, PY, name))
                continue
        if name == "exceljs":
            if shutil.which("node") is None or not os.path.exists(os.path.join(HERE, "node_modules", "exceljs")):
                log("skipping exceljs: run `npm ci --prefix bench/peers` (needs Node.js)")
                continue
        ok.append(name)
    return ok


class Task:
    """One program's runs at one task."""

    def __init__(self, group, label):
        self.group, self.label, self.walls, self.rss, self.cpus = group, label, [], [], []

    def add(self, m):
        self.walls.append(m[0])
        self.rss.append(m[1])
        self.cpus.append(m[2])

    def wall(self):
        return statistics.median(self.walls)

    def peak(self):
        return statistics.median(self.rss)

    def cpu(self):
        return statistics.median(self.cpus)

    def json(self):
        return {"group": self.group, "program": self.label, "wall_s": self.walls, "peak_rss_mb": self.rss, "cpu_s": self.cpus}


def pairs(group, own_label, own, peers, reps, order_log):
    """Times annosheet (own: rep -> cmd) against each peer (name ->
    (label, rep -> cmd)), pair by pair. Returns [own task, peer tasks]."""
    own_t = Task(group, own_label)
    tasks = [own_t]
    for name, (label, cmd) in peers.items():
        t = Task(group, label)
        tasks.append(t)
        for rep in range(reps):
            runs = [(own_t, own), (t, cmd)]
            if rep % 2:
                runs.reverse()
            for task, c in runs:
                task.add(measure(c(rep)))
                order_log.append(task.label)
            log("  %s: annosheet %.2f s, %s %.2f s" % (group, own_t.walls[-1], label, t.walls[-1]))
    return tasks


def one_size(n, args, bins, peers, work):
    annosheet, kit = bins
    d = os.path.join(work, "rows-%d" % n)
    os.makedirs(d, exist_ok=True)
    log("rows=%d: making the data in %s" % (n, d))
    sh([kit, "data", "-dir", d, "-rows", str(n), "-text", args.text])
    inp = os.path.join(d, "input.jsonl")
    gen = os.path.join(d, "gen")
    shutil.rmtree(gen, ignore_errors=True)
    sh([annosheet, "generate", "--template", "legal-gaps", "--input", inp, "--out", gen])
    book = os.path.join(gen, "legal-gaps-b01.xlsx")
    rec = os.path.join(d, "recipe.jsonl")
    sh([kit, "recipe", "-manifest", os.path.join(gen, "manifest.json"), "-input", inp, "-out", rec])
    cols = os.path.join(d, "columns.json")
    order = []
    tasks = []

    # Writing.
    def gen_cmd(rep):
        out = os.path.join(d, "out-annosheet")
        shutil.rmtree(out, ignore_errors=True)
        return [annosheet, "generate", "--template", "legal-gaps", "--input", inp, "--out", out]

    writers = {}
    for name in peers:
        if name in WRITERS:
            label, base = WRITERS[name]
            out = os.path.join(d, "out-%s.xlsx" % name)
            writers[name] = (label, lambda rep, base=base, out=out: base + [rec, out])
    tasks += pairs("write", "annosheet generate", gen_cmd, writers, args.reps, order)

    # Reading, both forms.
    for form, fname in (("read, annosheet's form", "filled.xlsx"), ("read, shared strings", "filled-sst.xlsx")):
        path = os.path.join(d, fname)
        tag = "own" if fname == "filled.xlsx" else "sst"
        readers = {}
        for name in peers:
            if name in READERS:
                label, base = READERS[name]
                out = os.path.join(d, "read-%s-%s.jsonl" % (name, tag))
                readers[name] = (label, lambda rep, base=base, path=path, out=out: base + [path, cols, out])
        pull_out = os.path.join(d, "pull-%s.jsonl" % tag)
        tasks += pairs(form, "annosheet pull", lambda rep, path=path, o=pull_out: [annosheet, "pull", path, "--out", o, "--force"],
                       readers, args.reps, order)

    # The same cells, the same answers.
    log("rows=%d: checking" % n)
    failures = []
    written = [os.path.join(d, "out-%s.xlsx" % p) for p in peers if p in WRITERS]
    if written:
        check = [kit, "check", "-want", book] + (["-layout"] if n <= 20000 else []) + written
        r = subprocess.run(check, capture_output=True, text=True)
        log(r.stdout.rstrip())
        if r.returncode != 0:
            failures.append("check: " + r.stderr.strip())
    read = [os.path.join(d, "read-%s-%s.jsonl" % (p, tag)) for p in peers if p in READERS for tag in ("own", "sst")]
    if read:
        r = subprocess.run([kit, "answers", "-book", os.path.join(d, "filled.xlsx")] + read, capture_output=True, text=True)
        log(r.stdout.rstrip())
        if r.returncode != 0:
            failures.append("answers: " + r.stderr.strip())
    for tag in ("own", "sst"):
        with open(os.path.join(d, "pull-%s.jsonl" % tag), encoding="utf-8") as f:
            complete = sum('"status":"complete"' in line for line in f)
        if complete != n:
            failures.append("annosheet pull (%s): %d complete records of %d" % (tag, complete, n))

    floor = json.loads(sh([kit, "floor", book]))
    sizes = {
        "input_mb": os.path.getsize(inp) / 1e6,
        "annosheet_book_mb": os.path.getsize(book) / 1e6,
        "filled_mb": os.path.getsize(os.path.join(d, "filled.xlsx")) / 1e6,
        "filled_sst_mb": os.path.getsize(os.path.join(d, "filled-sst.xlsx")) / 1e6,
    }
    for name in writers:
        sizes[name + "_book_mb"] = os.path.getsize(os.path.join(d, "out-%s.xlsx" % name)) / 1e6
    return {"rows": n, "text": args.text, "tasks": tasks, "floor": floor, "sizes": sizes,
            "failures": failures, "order": order}


def startup(reps, peers, annosheet):
    """The start-up of each runtime alone, for reading the small sizes."""
    cmds = [("annosheet --version", [annosheet, "--version"])]
    if "xlsxwriter" in peers:
        cmds.append(("python3, import xlsxwriter", [PY, "-c", "import xlsxwriter"]))
    if "openpyxl" in peers:
        cmds.append(("python3, import openpyxl", [PY, "-c", "import openpyxl"]))
    if "exceljs" in peers:
        cmds.append(("node, import exceljs", ["node", "--input-type=module", "-e", "import 'exceljs'"]))
    out = []
    for label, cmd in cmds:
        t = Task("start-up", label)
        for _ in range(reps):
            t.add(measure(cmd, cwd=HERE))  # where node finds node_modules
        out.append(t)
    return out


def table(res):
    n, s, fl = res["rows"], res["sizes"], res["floor"]
    lines = ["", "rows=%s, %s text: input %.1f MB; annosheet's workbook %.1f MB (Annotate sheet: %.1f MB of XML)" % (
        f"{n:,}", res["text"], s["input_mb"], s["annosheet_book_mb"], fl["bytes"] / 1e6), ""]
    lines.append("| task | program | wall s (median; min-max) | CPU s | peak RSS MB | annosheet / this: wall, CPU |")
    lines.append("|---|---|---|---|---|---|")
    groups = []
    for t in res["tasks"]:
        if t.group not in groups:
            groups.append(t.group)
    for g in groups:
        ts = [t for t in res["tasks"] if t.group == g]
        own, others = ts[0], ts[1:]
        for t in ts:
            ratio = "" if t is own else "%.2f, %.2f" % (own.wall() / t.wall(), own.cpu() / t.cpu())
            lines.append("| %s | %s | %.2f; %.2f-%.2f | %.2f | %.0f | %s |" % (
                g, t.label, t.wall(), min(t.walls), max(t.walls), t.cpu(), t.peak(), ratio))
        if others:
            fast = min(others, key=Task.wall)
            lines.append("| %s | annosheet / fastest peer (%s) | | | | **%.2f**, %.2f |" % (
                g, fast.label, own.wall() / fast.wall(), own.cpu() / fast.cpu()))
    lines.append("| floor | inflate the Annotate XML | %.2f | %.2f | | |" % (fl["inflate_s"], fl["inflate_cpu_s"]))
    lines.append("| floor | deflate it, level 6 (annosheet's default) | %.2f | %.2f | | (%.1f MB) |" % (
        fl["deflate6_s"], fl["deflate6_cpu_s"], fl["deflate6_bytes"] / 1e6))
    lines.append("| floor | deflate it, level 1 (annosheet's fast choice) | %.2f | %.2f | | (%.1f MB) |" % (
        fl["deflate1_s"], fl["deflate1_cpu_s"], fl["deflate1_bytes"] / 1e6))
    files = ", ".join("%s %.1f MB" % (k[:-len("_book_mb")], v) for k, v in s.items() if k.endswith("_book_mb"))
    lines.append("")
    lines.append("Files written: " + files + "; filled workbooks read: %.1f MB (inline strings), %.1f MB (shared strings)." % (
        s["filled_mb"], s["filled_sst_mb"]))
    for f in res["failures"]:
        lines.append("CHECK FAILED: " + f)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="*", type=int, default=[1000, 100000])
    ap.add_argument("--text", choices=["prose", "repetitive"], default="prose")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", help="keep the data and outputs here (default: a temporary folder, removed)")
    ap.add_argument("--peers", default="xlsxwriter,openpyxl,exceljs")
    ap.add_argument("--json", help="also write the raw measurements to this file")
    args = ap.parse_args()

    peers = available([p for p in args.peers.split(",") if p])
    work = args.dir or tempfile.mkdtemp(prefix="annosheet-peers-")
    os.makedirs(work, exist_ok=True)
    bins = os.path.join(work, "bin")
    os.makedirs(bins, exist_ok=True)
    annosheet, kit = os.path.join(bins, "annosheet"), os.path.join(bins, "kit")
    log("building annosheet and kit")
    sh(["go", "build", "-o", annosheet, "./cmd/annosheet"], cwd=ROOT)
    sh(["go", "build", "-o", kit, "./bench/peers/kit"], cwd=ROOT)
    failed = False
    results = []
    try:
        print("Peers: %s. %d cores; load average %.1f at the start." % (
            ", ".join(peers) or "none", os.cpu_count(), os.getloadavg()[0]))
        up = startup(args.reps, peers, annosheet)
        print("\nStart-up alone (median s): " + "; ".join("%s %.2f" % (t.label, t.wall()) for t in up))
        for n in args.rows:
            res = one_size(n, args, (annosheet, kit), peers, work)
            results.append(res)
            print(table(res), flush=True)
            failed = failed or bool(res["failures"])
        print("\nLoad average at the end: %.1f" % os.getloadavg()[0])
    finally:
        if args.json:
            with open(args.json, "w") as f:
                json.dump([dict(r, tasks=[t.json() for t in r["tasks"]]) for r in results], f, indent=1)
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
