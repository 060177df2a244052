"""Integration tests of `wasp diff` (what changed between two profiles).

Not run on its own: tests/integration/run.py imports this module and calls

    diff.make_tests(sys.modules[__name__])

which returns (per_jdk, once): per_jdk is [(name, fn(ctx, jdk))], run once per
JDK and watchpoint engine (they profile); once is [(name, fn(ctx))]. `h` is
run.py's module; the helpers used from it: Fail, check, tail, run, scaled,
expectation, checksum_of, find_jdks, leaf, at, where, WASP, CLASSES, ROOT,
PLANTED, CONTROL_MAX, and Ctx (path, report).

diff.same-program diffs two runs of DeadStoreEuler, ten times: no change may
be significant in at least nine.

The planted workload DeadStoreEuler and its fixed twin
(tests/workloads/fixed/DeadStoreEuler.java: the same class and line numbers,
the dead store removed) are profiled; the diff must report the planted pair
as gone and F_prog as fallen. diff.html opens the HTML diff of the two in
headless Chromium (report_html.py's helpers: skipped without Chromium,
except under CI) and looks for the same.

diff.blocked diffs a view's sub view (issue 39): the locks' time blocked,
from LocksBlocked runs whose mix of blocked time differs by a planted amount,
and two runs of the same mix.
"""

import collections
import html.parser
import json
import os
import shutil

import locks  # LocksBlocked's truth: blocked_truth, shares, BLOCKED_CLASSES, BLOCKED_MARGIN
import report_html  # headless Chromium: browse, dump, static_checks

H = None  # run.py's module, set by make_tests

WORKLOAD = "DeadStoreEuler"
FIXED_SRC = os.path.join("tests", "workloads", "fixed", WORKLOAD + ".java")
# What "shrank" must mean to count as fixed: the planted pair keeps at most
# this part of its share (sampling noise can leave a stray pair at the line).
SHRINK_KEPT = 0.2
SCREENSHOT = "build/diff-html.png"


def make_tests(h):
    global H
    H = h
    report_html.make_tests(h)  # gives report_html run.py's module for its helpers
    per_jdk = [("diff.fixed-twin", t_fixed_twin), ("diff.same-program", t_same_program)]
    once = [("diff.bad-input", t_bad_input), ("diff.html", t_html), ("diff.blocked", t_blocked)]
    return per_jdk, once


def planted_bounds():
    """F_prog bounds the planted-workload test (run.py PLANTED) holds it to."""
    for _name, workload, _args, lo, hi in H.PLANTED:
        if workload == WORKLOAD:
            return lo, hi
    raise H.Fail("%s is not in run.py's PLANTED table" % WORKLOAD)


def compile_fixed(ctx, jdk):
    javac = os.path.join(jdk.home, "bin", "javac")
    if not os.access(javac, os.X_OK):
        javac = shutil.which("javac")
    H.check(javac, "no javac to compile %s" % FIXED_SRC)
    out = ctx.path("fixed-classes")
    os.makedirs(out)
    r = H.run([javac, "--release", "17", "-g", "-d", out, os.path.join(H.ROOT, FIXED_SRC)],
              timeout=120)
    H.check(r.rc == 0, "javac %s exited %d: %s" % (FIXED_SRC, r.rc, H.tail(r.err)))
    return out


def profile(ctx, jdk, classes, args, tag, events="deadstore"):
    out = ctx.path("%s.wprof" % tag)
    r = H.run([H.WASP, "run", "-e", events, "-o", out, "-q", "--", jdk.java, "-cp",
               classes, WORKLOAD] + args)
    H.check(r.rc == 0, "wasp run (%s) exited %d: %s" % (tag, r.rc, H.tail(r.err)))
    H.check(os.path.isfile(out), "wasp run (%s) wrote no profile" % tag)
    return out, H.checksum_of(r.out)


def diff_json(before, after):
    r = H.run([H.WASP, "diff", "--format", "json", before, after], timeout=60)
    H.check(r.rc == 0, "wasp diff exited %d: %s" % (r.rc, H.tail(r.err)))
    try:
        d = json.loads(r.out)
    except ValueError as e:
        raise H.Fail("wasp diff --format json printed no JSON (%s): %s" % (e, H.tail(r.out)))
    H.check(d.get("format") == "wasp-diff", "diff JSON has no \"format\": \"wasp-diff\"")
    return d


# On page protection the planted pair's p-value spread 1.5e-08-7.9e-05 in
# six runs (2026-11-30, JDK 25, a Firecracker guest; 10-15 samples armed a
# run) and a CI run's 8.7e-05 was called within noise: Holm's bar for the
# smallest of a few hundred changes is about 1e-4. Twice the work there
# doubles the evidence: its z grows by 1.4, the p at the spread's top falls
# to about 1e-7.
PAGE_TWIN_WORK = 2


def twins(ctx, jdk):
    """Profiles of the planted workload and of its fixed twin (same result)."""
    args = H.scaled(WORKLOAD, [])
    if H.MECHANISM["scale"] > 1:
        args = [str(int(args[0]) * PAGE_TWIN_WORK)] + args[1:]
    fixed = compile_fixed(ctx, jdk)
    before, sum_before = profile(ctx, jdk, H.CLASSES, args, "planted")
    after, sum_after = profile(ctx, jdk, fixed, args, "fixed")
    H.check(sum_before and sum_before == sum_after,
            "the fixed twin computes another result (%s vs %s): it is no twin"
            % (sum_before, sum_after))
    return before, after


def planted_changes(a, method, line):
    """The changes of the pairs watched at the planted line; each must show
    the pair gone, the heaviest must have ranked #1 before. The heaviest."""
    planted = [c for c in a["changes"] if H.at(H.leaf(c.get("watch")), method, line)]
    H.check(planted, "no change reported for the pair watched at %s:%d (changes: %s)"
            % (method, line, ", ".join("%s %s" % (c["change"], H.where(H.leaf(c.get("watch"))))
                                       for c in a["changes"][:5]) or "none"))
    for c in planted:
        gone = c["change"] == "vanished" or (
            c["change"] == "shrank" and c["share_after"] <= SHRINK_KEPT * c["share_before"])
        H.check(gone, "the planted pair %s: %.3f -> %.3f of stored bytes" %
                (c["change"], c["share_before"], c["share_after"]))
    top = max(planted, key=lambda c: c["share_before"])
    H.check(top["rank_before"] == 1, "the planted pair ranked #%s before, not #1"
            % top["rank_before"])
    return top


def summary_place(d, analysis, method, line):
    """The diff summary's place at method:line of analysis."""
    for a in d["summary"]["analyses"]:
        if a["analysis"] != analysis:
            continue
        for p in a["places"]:
            if p["place"].startswith(method + "(") and p["place"].endswith(":%d)" % line):
                return p
        raise H.Fail("the diff summary of %s has no place %s:%d (it has %s)" % (
            analysis, method, line, ", ".join(p["place"] for p in a["places"]) or "none"))
    raise H.Fail("the diff summary has no %s" % analysis)


def t_fixed_twin(ctx, jdk):
    e = H.expectation(WORKLOAD)
    method, line = e["method"], e["line"]
    lo, _hi = planted_bounds()
    before, after = twins(ctx, jdk)

    # The single runs: the planted one must show its waste, or the diff proves nothing.
    f_before = ctx.report(before)["analyses"]["deadstore"]["fraction"]
    f_after = ctx.report(after)["analyses"]["deadstore"]["fraction"]
    H.check(f_before > lo, "planted run: F_prog %.3f, not above %.2f (too little data)"
            % (f_before, lo))

    d = diff_json(before, after)
    a = d["analyses"].get("deadstore")
    H.check(isinstance(a, dict), "diff JSON has no deadstore analysis")
    H.check(abs(a["before"]["fraction"] - f_before) < 1e-9 and
            abs(a["after"]["fraction"] - f_after) < 1e-9,
            "diff F_prog %.4f -> %.4f, the reports say %.4f -> %.4f"
            % (a["before"]["fraction"], a["after"]["fraction"], f_before, f_after))
    # The planted run's F_prog is above lo (its own test's bound, 0.3: one dead
    # store per live store, F ~ 0.5) and the fixed twin is a control (no dead
    # store in the hot loop: F below run.py's CONTROL_MAX for dead stores, 0.1), so F_prog
    # falls by more than lo - CONTROL_MAX = 0.2.
    drop = lo - H.CONTROL_MAX["deadstore"]
    H.check(a["fraction_change"] < -drop, "F_prog fell by %.3f (%.3f -> %.3f), expected > %.2f"
            % (-a["fraction_change"], f_before, f_after, drop))

    top = planted_changes(a, method, line)
    # Beyond sampling noise (docs/diff.md): the evidence of a ~50% pair gone is overwhelming.
    H.check(top["significant"], "the planted pair's change is called within noise (p %.3g)"
            % top["p_value"])

    place = summary_place(d, "deadstore", method, line)
    H.check(place["before"]["rank"] == 1 and place["after"]["rank"] is None,
            "the summary's planted place ranked #%s before and #%s after, not #1 and gone"
            % (place["before"]["rank"], place["after"]["rank"]))
    H.check(place["significant"] and place["cpu_change"] < 0,
            "the planted line's CPU %.3f -> %.3f is not a significant fall (p %.3g)"
            % (place["before"]["cpu_share"], place["after"]["cpu_share"], place["p_value"]))

    r = H.run([H.WASP, "diff", before, after], timeout=60)
    H.check(r.rc == 0, "wasp diff (text) exited %d: %s" % (r.rc, H.tail(r.err)))
    where = "(%s.java:%d)" % (WORKLOAD, line)
    H.check(r.out.index("SUMMARY:") < r.out.index("DETAIL") and
            "%s: CPU " % place["place"] in r.out and "[significant]" in r.out,
            "the text diff's summary does not show the planted place: %s" % H.tail(r.out, 12))
    H.check(("VANISHED  Dead store pair #1 before" in r.out or
             "SHRANK    Dead store pair #1 before" in r.out) and where in r.out,
            "text diff does not say the planted pair went: %s" % H.tail(r.out, 12))
    return "F_prog %.3f -> %.3f; planted pair %s, p %.2g; its line's CPU %.3f -> %.3f, p %.2g" % (
        f_before, f_after, top["change"], top["p_value"], place["before"]["cpu_share"],
        place["after"]["cpu_share"], place["p_value"])


# Two runs of one program (same workload, same options) differ only by
# sampling: their diff must call no change significant, in at least
# SAME_CLEAN of SAME_TRIALS trials (the test is held to 1% family-wise per
# diff, docs/diff.md). Short runs keep the test under two minutes: 20 runs
# of ~2-4 s here (the page engine's at half the steps: at its test budget a
# step costs it twice as much). The three pair analyses give each diff dozens of entries
# that moved by chance; the test insists there were some (NOISE_MIN in all),
# or it would prove nothing: before the test of noise every one of them was
# reported as a change.
# Measured (clean diffs; smallest Holm-adjusted p of a diff, 1% is the line):
# JDK 17 debugreg 10/10 twice (0.058: two start-up pairs of a run whose budget
# was spent, each standing for 38 refused samples; then 3.1), page 10/10 twice
# (smallest 9.2); JDK 25 debugreg 10/10 (2.6), page 10/10 (4.4); 500-940
# changes within noise per ten diffs. Broken, the same profiles fail: without
# the weights 20 of 28 page diffs had 1-11 significant changes, without the
# run-to-run variance 3 of 10 debugreg diffs had 1-2. At 1% per diff, two
# flagged diffs of ten happen by chance with probability ~0.4%.
SAME_TRIALS, SAME_CLEAN, SAME_SIZE, NOISE_MIN = 10, 9, 150, 10


def holm_min(d):
    """The smallest Holm-adjusted p of a diff: p times the tests made, at most 1."""
    ps, m = [], 0
    for a in d["analyses"].values():
        if a["before"]["samples"] > 0 and a["after"]["samples"] > 0:
            m += len(a["changes"]) + a["changes_not_shown"] + a["unchanged"]
        ps += [c["p_value"] for c in a["changes"]]
    return min([min(1.0, p * m) for p in ps], default=1.0)


def t_same_program(ctx, jdk):
    events = "deadstore,silentstore,silentload"
    size = [str(SAME_SIZE // H.MECHANISM["scale"])]
    clean, noise, flagged, worst, tested, summary_worst = 0, 0, [], [], 0, []
    for t in range(SAME_TRIALS):
        before, _ = profile(ctx, jdk, H.CLASSES, size, "same-%d-a" % t, events)
        after, _ = profile(ctx, jdk, H.CLASSES, size, "same-%d-b" % t, events)
        d = diff_json(before, after)
        H.check(isinstance(d.get("significant_changes"), int) and
                isinstance(d.get("within_noise"), int), "diff JSON has no significant_changes "
                "and within_noise")
        noise += d["within_noise"]
        worst.append(holm_min(d))
        places = [p for a in d["summary"]["analyses"] for p in a["places"]]
        tested += sum(p["tested"] for p in places)
        summary_worst.append(min([p["p_value"] * len(places) for p in places if p["tested"]],
                                 default=1.0))
        if d["significant_changes"] == 0 and d["summary"]["significant_changes"] == 0:
            clean += 1
        else:
            flagged.append("trial %d: %s; summary: %d significant" % (
                t, d["changes_summary"], d["summary"]["significant_changes"]))
        if t == 0:  # the text says the same
            r = H.run([H.WASP, "diff", before, after], timeout=60)
            H.check(r.rc == 0 and ("changes %s (" % d["changes_summary"]) in r.out,
                    "text diff's changes line is not %r: %s" % (d["changes_summary"],
                                                                 H.tail(r.out, 8)))
    H.check(noise >= NOISE_MIN, "only %d changes within noise in %d diffs: too little evidence "
            "to test the noise floor" % (noise, SAME_TRIALS))
    H.check(clean >= SAME_CLEAN, "%d of %d diffs of one program called changes significant: %s"
            % (SAME_TRIALS - clean, SAME_TRIALS, "; ".join(flagged)))
    H.check(tested >= SAME_TRIALS, "only %d places of the diffs' summaries tested" % tested)
    return ("%d of %d diffs clean; %d changes within noise; smallest Holm-adjusted p %s; "
            "summary: %d places tested, smallest adjusted p %s") % (
        clean, SAME_TRIALS, noise, ", ".join("%.2g" % p for p in sorted(worst)[:3]), tested,
        ", ".join("%.2g" % p for p in sorted(summary_worst)[:3]))


def t_bad_input(ctx):
    """A truncated or foreign file, on either side: exit 1 with the message
    `wasp report` gives for it; usage errors exit 2."""
    jdks = H.find_jdks()
    H.check(jdks, "no JDK")
    good = ctx.path("good.wprof")
    r = H.run([H.WASP, "run", "-e", "deadstore", "-o", good, "-q", "--", jdks[0].java,
               "-version"], timeout=120)
    H.check(r.rc == 0 and os.path.isfile(good), "making a profile: %s" % H.tail(r.err))
    with open(good, "rb") as f:
        data = f.read()
    cut = ctx.path("truncated.wprof")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    foreign = ctx.path("foreign.txt")
    with open(foreign, "w") as f:
        f.write("just some text, not a profile\n")
    for bad in (cut, foreign):
        rep = H.run([H.WASP, "report", bad], timeout=60)
        H.check(rep.rc == 1 and rep.err.startswith("wasp report: "),
                "wasp report %s: rc %d %r" % (bad, rep.rc, rep.err[-200:]))
        want = "wasp diff: " + rep.err[len("wasp report: "):]
        for pair in ((bad, good), (good, bad)):
            r = H.run([H.WASP, "diff"] + list(pair), timeout=60)
            H.check(r.rc == 1, "wasp diff %s %s exited %d" % (pair + (r.rc,)))
            H.check(r.err == want, "wasp diff says %r, wasp report %r" % (r.err, rep.err))
            H.check(not r.out, "wasp diff printed a diff of a bad file")
    for args in ([good], ["--format", "pprof", good, good], [good, good, good]):
        r = H.run([H.WASP, "diff"] + args, timeout=60)
        H.check(r.rc == 2 and "Try 'wasp diff --help'" in r.err,
                "wasp diff %s: rc %d %r" % (" ".join(args), r.rc, r.err[-200:]))
        if "--format" in args:
            H.check("text, json or html" in r.err, "the --format error names no accepted value: %r"
                    % r.err[-200:])
    r = H.run([H.WASP, "diff", good, good], timeout=60)
    H.check(r.rc == 0 and "no pair changed" in r.out,
            "a profile against itself: rc %d %s" % (r.rc, H.tail(r.out)))
    return "truncated and foreign refused as report refuses them"


class Rows(html.parser.HTMLParser):
    """The diff page's changed entries: (change, leaf) for each row
    <tr data-change=...> and the cell in it that names its leaf frame
    (<td data-leaf="method:line">); the frames listed under the rows
    (<li data-method=...>); the sections' headings (<h2 data-analysis=...>,
    a sub view's <h3 data-analysis="locks.blocked">) and, per section, its
    rows' (change, significant)."""

    def __init__(self, text):
        super().__init__()
        self.rows, self.methods, self.analyses, self.change = [], set(), [], None
        self.significant = set()  # the rows' (change, leaf) whose data-significant is 1
        self.places = {}  # the summary's rows: place -> significant
        self.sections = collections.defaultdict(list)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-place" in a:
            self.places[a["data-place"]] = a.get("data-significant") == "1"
        elif tag == "tr":
            self.change = a.get("data-change")
            self.sig = a.get("data-significant") == "1"
            if self.change and self.analyses:
                self.sections[self.analyses[-1]].append((self.change, self.sig))
        elif tag == "td" and self.change and "data-leaf" in a:
            self.rows.append((self.change, a["data-leaf"]))
            if self.sig:
                self.significant.add(self.rows[-1])
        elif tag == "li" and "data-method" in a:
            self.methods.add(a["data-method"])
        elif tag in ("h2", "h3") and "data-analysis" in a:
            self.analyses.append(a["data-analysis"])


def t_html(ctx):
    """The HTML diff of the planted workload and its fixed twin: the page
    holds the diff JSON and loads nothing; in Chromium, no console errors and
    the planted pair's row says it went (as the JSON does), its frames listed;
    a screenshot for people."""
    browser = report_html.chromium()
    jdks = H.find_jdks()
    H.check(jdks, "no JDK")
    # The pages of one engine's profiles are enough: the page does not depend
    # on it. The first engine that works, with its test settings (budget).
    engines = [w for w in H.ENGINES if not H.engine_verdict(jdks[0], w)]
    if not engines:
        raise H.Skip("no watchpoint engine works here")
    return H.with_mechanism(lambda c: html_of_twins(c, jdks[0], browser), jdks[0],
                            watch=engines[0])(ctx)


def diff_page(ctx, browser, before, after):
    """The diff JSON of before and after, and the Rows of its HTML page as
    headless Chromium draws it (the page holds that JSON, loads nothing, and
    its script finished without errors); and the page's path."""
    # The same --top for both, so the page's data are exactly this JSON.
    rj = H.run([H.WASP, "diff", "--format", "json", "--top", "50", before, after], timeout=60)
    H.check(rj.rc == 0, "wasp diff --format json exited %d: %s" % (rj.rc, H.tail(rj.err)))
    page = ctx.path("diff.html")
    rh = H.run([H.WASP, "diff", "--format", "html", "--top", "50", "-o", page, before, after],
               timeout=60)
    H.check(rh.rc == 0 and not rh.out, "wasp diff --format html exited %d: %s"
            % (rh.rc, H.tail(rh.err)))
    with open(page, encoding="utf-8") as f:
        report_html.static_checks(f.read(), rj.out)
    r = report_html.browse(ctx, browser, page, ["--dump-dom"])
    d = report_html.Dom(r.out)  # the page's script ran, finished, failed nowhere
    H.check(d.body is not None and not d.body.get("data-errors") and d.body.get("data-ready") == "1",
            "the diff page's script failed or did not finish: %s"
            % (d.body or {}).get("data-errors", "no data-ready"))
    return json.loads(rj.out), Rows(r.out), page


def html_of_twins(ctx, jdk, browser):
    e = H.expectation(WORKLOAD)
    method, line = e["method"], e["line"]
    before, after = twins(ctx, jdk)
    d, rows, page = diff_page(ctx, browser, before, after)
    a = d["analyses"].get("deadstore")
    H.check(isinstance(a, dict), "diff JSON has no deadstore analysis")
    top = planted_changes(a, method, line)
    H.check("deadstore" in rows.analyses, "the page shows no deadstore analysis (%s)" % rows.analyses)
    want = (top["change"], "%s:%d" % (method, line))
    H.check(want in rows.rows, "no %s row watched at %s:%d on the page (rows: %s)"
            % (top["change"], method, line, rows.rows[:5]))
    H.check(want in rows.significant, "the page calls the planted pair's change within noise")
    noise = sum(not c["significant"] for c in a["changes"])
    H.check(len(rows.rows) - len(rows.significant) == noise, "the page marks %d rows within noise, "
            "the JSON %d" % (len(rows.rows) - len(rows.significant), noise))
    H.check(len(rows.rows) == len(a["changes"]), "the page shows %d changes, the JSON %d"
            % (len(rows.rows), len(a["changes"])))
    H.check(method in rows.methods, "the page lists no frame of %s" % method)
    place = summary_place(d, "deadstore", method, line)
    H.check(rows.places.get(place["place"]) is True, "the page's summary has no significant row "
            "for %s (rows: %s)" % (place["place"], rows.places))

    shot = os.path.join(H.ROOT, SCREENSHOT)
    if os.path.exists(shot):
        os.unlink(shot)
    report_html.browse(ctx, browser, page, ["--hide-scrollbars", "--window-size=1300,1000",
                                            "--screenshot=" + shot])
    H.check(os.path.isfile(shot) and os.path.getsize(shot) > 1000, "no screenshot written at %s" % shot)
    return "planted pair %s on the page; %d rows; screenshot %s" % (top["change"], len(rows.rows),
                                                                    SCREENSHOT)


# ---- diff.blocked: a view's sub view, the locks' time blocked (issue 39) ----
#
# LocksBlocked (tests/workloads/LocksBlocked.java; locks.py, locks.jfr) blocks
# a waiter on three locks for L:S:R units of the holder's sleep, and prints
# the blocked time it measured itself per class (the truth). Three runs of
# -e locks: two of the default mix 3:1:2 and one with the ReentrantLock held
# 6 times as long, 3:1:12 (its blocked share moves from ~33% to ~67%, as the
# workload's own times say). The diff of a 3:1:2 run against the 3:1:12 one
# must compare the blocked time as a section of its own (JSON
# analyses.locks.blocked, its text after the locks', its HTML section): the
# planted class's row grew, significantly, first of the section's changes,
# its shares within BLOCKED_MARGIN of the truth's on both sides (locks.py:
# wasp's shares are within 0-3 points of the truth, sd ~1.5). The diff of
# the two 3:1:2 runs must find no significant change of blocked time.
# Measured (JDK 17, 6 runs of the test, 31-37 s each on the loaded 2-core
# machine): the planted change p 8e-12 to 6e-8 (z 5.4-6.9, mean 6.0, sd
# 0.55; Holm's line for ~6 tests, p 1.7e-3 or z 3.1, is 5 sd below),
# 286-378 -> 733-775 blocked samples; wasp's shares 0.5-5.7 points from the
# workload's own (mean 2.7, sd 1.5: the 10-point margin is ~5 sd away; a
# share of lock samples or of another total is tens of points off); the
# same mix: 0 significant changes in 6, smallest unadjusted p 0.49-0.84,
# largest move 2.2-8.9 points.
BLOCKED_WORKLOAD, BLOCKED_ARGS = "LocksBlocked", ["100", "5"]
MIX_SAME, MIX_PLANTED = "3:1:2", "3:1:12"
PLANTED_CLASS = "java.util.concurrent.locks.ReentrantLock$NonfairSync"


def blocked_run(ctx, jdk, tag, mix):
    """A -e locks profile of LocksBlocked with the mix; its path and the
    workload's own shares of blocked time by class."""
    out = ctx.path("blocked-%s.wprof" % tag)
    r = H.run([H.WASP, "run", "-e", "locks", "-o", out, "-q", "--", jdk.java, "-cp", H.CLASSES,
               BLOCKED_WORKLOAD] + BLOCKED_ARGS + [mix])
    H.check(r.rc == 0, "wasp run (%s) exited %d: %s" % (tag, r.rc, H.tail(r.err)))
    H.check(os.path.isfile(out), "wasp run (%s) wrote no profile" % tag)
    return out, locks.shares(locks.blocked_truth(r.out))


def blocked_section(d):
    b = d["analyses"].get("locks", {}).get("blocked")
    H.check(isinstance(b, dict) and isinstance(b.get("changes"), list),
            "diff JSON has no analyses.locks.blocked with changes (locks: %s)"
            % sorted(d["analyses"].get("locks", {})))
    H.check(b.get("title") == "Time blocked on locks" and b.get("unit") == "seconds",
            "analyses.locks.blocked is titled %r in %r" % (b.get("title"), b.get("unit")))
    return b


def t_blocked(ctx):
    jdks = H.find_jdks()
    H.check(jdks, "no JDK")
    jdk = jdks[0]
    browser = report_html.chromium()
    same_a, truth = blocked_run(ctx, jdk, "same-a", MIX_SAME)
    same_b, _ = blocked_run(ctx, jdk, "same-b", MIX_SAME)
    planted, truth_planted = blocked_run(ctx, jdk, "planted", MIX_PLANTED)

    d, rows, _page = diff_page(ctx, browser, same_a, planted)
    b = blocked_section(d)
    mine = [c for c in b["changes"] if c.get("class") == PLANTED_CLASS and c.get("kind") == "park"]
    listed = "; ".join("%s %s/%s %.3f -> %.3f p %.2g" % (c["change"], c.get("class"), c.get("kind"),
                                                          c["share_before"], c["share_after"], c["p_value"])
                       for c in b["changes"])
    H.check(len(mine) == 1, "no blocked-time change of %s: %s" % (PLANTED_CLASS, listed or "none"))
    c = mine[0]
    t0, t1 = truth[PLANTED_CLASS], truth_planted[PLANTED_CLASS]
    summary = "%s %.1f%% -> %.1f%% (truth %.1f%% -> %.1f%%), p %.2g; %.0f -> %.0f blocked samples" % (
        PLANTED_CLASS.split(".")[-1], 100 * c["share_before"], 100 * c["share_after"], 100 * t0,
        100 * t1, c["p_value"], b["before"]["samples"], b["after"]["samples"])
    H.check(c["change"] == "grew" and c["significant"], "the planted class's blocked time: %s" % summary)
    H.check(b["changes"][0] is c, "the planted change is not the section's first: %s" % listed)
    H.check(abs(c["share_before"] - t0) <= locks.BLOCKED_MARGIN and
            abs(c["share_after"] - t1) <= locks.BLOCKED_MARGIN,
            "the blocked shares are more than %.0f points from the workload's own: %s"
            % (100 * locks.BLOCKED_MARGIN, summary))
    page = rows.sections.get("locks.blocked")
    H.check(page and len(page) == len(b["changes"]) and page[0] == ("grew", True),
            "the page's blocked-time section has rows %s, the JSON %d changes, first %s"
            % (page, len(b["changes"]), c["change"]))
    r = H.run([H.WASP, "diff", same_a, planted], timeout=60)
    text = "      class %s\n      kind park\n" % PLANTED_CLASS
    H.check(r.rc == 0 and "\nTime blocked on locks: " in r.out and text in r.out,
            "the text diff shows no blocked time of %s: %s" % (PLANTED_CLASS, H.tail(r.out, 20)))
    H.check(r.out.index("\nLocks: ") < r.out.index("\nTime blocked on locks: "),
            "the text diff's blocked time is not after the locks' section")

    same = blocked_section(diff_json(same_a, same_b))
    moved = max((abs(x["share_change"]) for x in same["changes"]), default=0)
    H.check(same["significant_changes"] == 0, "two runs of one mix differ significantly in blocked "
            "time: %s" % same["changes_summary"])
    return "%s; same mix: %s, largest move %.1f points, smallest p %.2g" % (
        summary, same["changes_summary"], 100 * moved,
        min((x["p_value"] for x in same["changes"]), default=1))
