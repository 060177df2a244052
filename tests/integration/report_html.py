"""Integration test of `wasp report --format html` in a real browser. (Not
named html.py: that would hide the standard library's html package.)

Not run on its own: tests/integration/run.py imports this module and calls

    report_html.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))], run per JDK. `h` is run.py's module;
the helpers used from it: Fail, Skip, check, tail, run, expectation, WASP,
CLASSES, ROOT, and Ctx.path.

The page is opened from disk by headless Chromium (Debian's `chromium`):
`--dump-dom` gives the DOM after the page's script ran, `--screenshot` a
picture (build/report-html.png, to look at). Console messages are logged to
stderr (`--enable-logging=stderr`); the page's script also records its
errors on <body data-errors> and sets <body data-ready> when it finished.
Without Chromium the test is skipped, except under CI (CI set), where it fails.
"""

import html.parser
import json
import os
import re
import shutil

H = None  # run.py's module, set by make_tests

WORKLOAD = "DeadStoreEuler"
SIZE = "1200"  # steps (thousands): enough watched pairs on either engine at BUDGET
BUDGET = "50%"  # as run.py's page-engine tests: enough pairs, whatever the engine
SCREENSHOT = "build/report-html.png"
# --top for both a page and the JSON it is compared with: without it the page
# keeps 50 pairs per analysis and the JSON all of them.
PAGE_TOP = "50"
# The sections test: one run of each workload with the three header-sample
# analyses, merged into one report: LocksHot locks (and its locks' mark words
# are fields), AllocMix creates objects (LocksHot allocates nothing in its
# loop, AllocMix locks nothing).
SECTIONS = ("fields", "alloc", "locks")
SECTION_RUNS = (("LocksHot", ("40", "1")), ("AllocMix", ()))
SECTIONS_SCREENSHOT = "build/report-html-sections.png"
# Anything in the page that would load from the network (the data element,
# which is JSON text and never fetched, is left out before this is applied).
NETWORK = re.compile(r"""(?:\b(?:src|href|action|srcset|poster|data)\s*=\s*["']?\s*(?:https?:)?//"""
                     r"""|https?://|url\(|@import|\bfetch\(|XMLHttpRequest|WebSocket|EventSource"""
                     r"""|sendBeacon)""", re.I)


def make_tests(h):
    """[(name, thunk(ctx, jdk))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [("report.html.deadstore", t_html_deadstore), ("report.html.sections", t_html_sections),
            ("report.html.warning", t_html_warning)]


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        raise H.Fail("chromium is missing (scripts/install-deps.sh installs it)")
    raise H.Skip("chromium is not installed (scripts/install-deps.sh installs it)")


def browse(ctx, browser, page, args):
    """Runs headless Chromium on file://page with args; returns the Result."""
    profile_dir = ctx.path("chromium-profile")
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--user-data-dir=" + profile_dir, "--enable-logging=stderr", "--v=0"] + args + [
           "file://" + page]
    r = H.run(cmd)
    shutil.rmtree(profile_dir, ignore_errors=True)
    H.check(r.rc == 0, "chromium exited %d: %s" % (r.rc, H.tail(r.err)))
    # Messages of the page's console (errors, CSP refusals) are logged as CONSOLE.
    console = [l for l in r.err.splitlines() if ":CONSOLE" in l]
    H.check(not console, "the page logged to the console: %s" % "; ".join(console[:3]))
    return r


class Dom(html.parser.HTMLParser):
    """The body's attributes and the flame-graph frames (<div class="fr ...">)."""

    def __init__(self, text):
        super().__init__()
        self.body, self.frames = None, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "div" and "fr" in (a.get("class") or "").split():
            a["classes"] = a["class"].split()
            self.frames.append(a)


class Tables(Dom):
    """Dom, and the ranked tables (<table data-table=NAME>) as {name: [row]}, a
    row {"attrs", "cells": [text], "frames": [<li> attrs]}; a row's opened
    contexts are the next row, of class "more"; h2 data-analysis in `sections`."""

    def __init__(self, text):
        self.tables, self.sections, self.table, self.row, self.cell = {}, [], None, None, None
        super().__init__(text)

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        a = dict(attrs)
        if tag == "h2" and a.get("data-analysis"):
            self.sections.append(a["data-analysis"])
        elif tag == "table" and a.get("data-table"):
            self.table = self.tables.setdefault(a["data-table"], [])
        elif self.table is not None and tag == "tr" and self.row is None:
            self.row = {"attrs": a, "cells": [], "frames": []}
        elif self.row is not None and tag == "td":
            self.cell = []
        elif self.row is not None and tag == "li":
            self.row["frames"].append(a)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None and self.row is not None:
            self.row["cells"].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row["cells"] and self.table is not None:  # not the heads (th)
                self.table.append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None


def dump(ctx, browser, page, fragment=""):
    r = browse(ctx, browser, page + fragment, ["--dump-dom"])
    d = Tables(r.out)
    H.check(d.body is not None, "chromium's DOM dump has no <body>: %s" % H.tail(r.out))
    H.check(not d.body.get("data-errors"), "the page's script failed: %s" % d.body.get("data-errors"))
    H.check(d.body.get("data-ready") == "1", "the page's script did not finish (no data-ready)")
    return d


class Warnings(Dom):
    """Dom, and the text of each <p class="warning">."""

    def __init__(self, text):
        self.warnings, self.inside = [], None
        super().__init__(text)

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag == "p" and "warning" in (dict(attrs).get("class") or "").split():
            self.inside = []

    def handle_data(self, data):
        if self.inside is not None:
            self.inside.append(data)

    def handle_endtag(self, tag):
        if tag == "p" and self.inside is not None:
            self.warnings.append("".join(self.inside).strip())
            self.inside = None


def static_checks(page_text, json_text):
    """The page embeds the JSON report unchanged and loads nothing."""
    m = re.search(r'<script type="application/json" id="wasp-data">(.*?)</script>', page_text, re.S)
    H.check(m, "the page has no wasp-data element")
    H.check("<" not in m.group(1), "the embedded data contains '<'")
    H.check(json.loads(m.group(1)) == json.loads(json_text),
            "the page's data differ from `wasp report --format json`")
    rest = page_text[:m.start()] + page_text[m.end():]
    net = NETWORK.search(rest)
    H.check(not net, "the page refers to the network: ...%s..." % rest[max(0, net.start() - 40):net.end() + 40]
            if net else "")
    H.check("Content-Security-Policy\" content=\"default-src 'none'" in rest,
            "the page has no Content-Security-Policy forbidding loads")


def t_html_deadstore(ctx, jdk):
    """The planted dead store's method is a frame of the page's flame graphs;
    a search for it (#search=) highlights it and nothing else; no console
    errors; no network; a screenshot for people."""
    browser = chromium()
    e = H.expectation(WORKLOAD)
    method = e["method"]  # "DeadStoreEuler.calculateDamping"
    prof = ctx.path("html.wprof")
    cmd = [H.WASP, "run", "-e", "deadstore", "--watch-budget", BUDGET, "-o", prof, "-q", "--",
           jdk.java, "-cp", H.CLASSES, WORKLOAD, SIZE]
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rj = H.run([H.WASP, "report", "--format", "json", "--top", PAGE_TOP, prof])
    H.check(rj.rc == 0, "wasp report --format json exited %d: %s" % (rj.rc, H.tail(rj.err)))
    pairs = json.loads(rj.out)["analyses"]["deadstore"]["pairs"]
    H.check(any(f.get("method") == method for p in pairs for f in p["watch"]["frames"]),
            "no dead-store pair is watched in %s (%d pairs): nothing to look for" % (method, len(pairs)))

    page = ctx.path("report.html")
    rh = H.run([H.WASP, "report", "--format", "html", "--top", PAGE_TOP, "-o", page, prof])
    H.check(rh.rc == 0, "wasp report --format html exited %d: %s" % (rh.rc, H.tail(rh.err)))
    with open(page, encoding="utf-8") as f:
        static_checks(f.read(), rj.out)

    plain = dump(ctx, browser, page)
    planted = [fr for fr in plain.frames if fr.get("data-method") == method]
    H.check(planted, "no flame-graph frame of %s (%d frames: %s)" % (
        method, len(plain.frames), ", ".join(sorted({fr.get("data-method") for fr in plain.frames}))))
    H.check(not any("match" in fr["classes"] for fr in plain.frames),
            "frames are highlighted without a search")
    H.check(any("k-java" in fr["classes"] for fr in planted),
            "the frame of %s is not coloured as Java" % method)

    short = method.rsplit(".", 1)[1]  # what a person types: the method's name
    found = dump(ctx, browser, page, "#search=" + short)
    hits = {fr.get("data-method") for fr in found.frames if "match" in fr["classes"]}
    H.check(method in hits, "searching %r highlights no frame of %s" % (short, method))
    H.check(all(short in (m or "") for m in hits), "searching %r highlights %s" % (short, sorted(hits)))
    H.check(len(hits) < len({fr.get("data-method") for fr in found.frames}),
            "searching %r highlights every frame" % short)

    shot = os.path.join(H.ROOT, SCREENSHOT)
    if os.path.exists(shot):
        os.unlink(shot)
    browse(ctx, browser, page + "#search=" + short,
           ["--hide-scrollbars", "--window-size=1300,1000", "--screenshot=" + shot])
    H.check(os.path.isfile(shot) and os.path.getsize(shot) > 1000, "no screenshot written at %s" % shot)
    return "%d frames, %d pairs; screenshot %s" % (len(plain.frames), len(pairs), SCREENSHOT)


def t_html_sections(ctx, jdk):
    """fields, alloc and locks (one run of LocksHot and one of AllocMix with
    `-e fields,alloc,locks`, merged): each section is drawn, its table's #1
    row names the report's #1 class and its contexts are open under it with
    Java frames; each flame graph has the #1 entry's class in its leaf
    frames; a search for the hot lock highlights only it; no console errors."""
    browser = chromium()
    profs = []
    for workload, args in SECTION_RUNS:
        prof = ctx.path("sections-%s.wprof" % workload)
        r = H.run([H.WASP, "run", "-e", ",".join(SECTIONS), "-o", prof, "-q", "--", jdk.java, "-cp", H.CLASSES,
                   workload] + list(args))
        H.check(r.rc == 0, "wasp run (%s) exited %d: %s" % (workload, r.rc, H.tail(r.err)))
        profs.append(prof)
    # The page and the JSON with the same --top, so the page's data must be
    # the JSON itself (each format has its own default).
    rj = H.run([H.WASP, "report", "--format", "json", "--top", PAGE_TOP] + profs)
    H.check(rj.rc == 0, "wasp report --format json exited %d: %s" % (rj.rc, H.tail(rj.err)))
    rep = json.loads(rj.out)
    # Per section: the table whose #1 row is checked, its entries in the
    # report, the #1 entry's text in that row, and the leaf frame naming it.
    top = {}
    for name, table, key in (("fields", "fields.members", "fields"), ("alloc", "alloc.classes", "classes"),
                             ("locks", "locks.classes", "classes")):
        entries = (rep.get(name) or {}).get(key) or []
        H.check(entries, "the report's %s has no %s: nothing to look for" % (name, key))
        top[name] = (table, entries[0]["class"])

    page = ctx.path("sections.html")
    rh = H.run([H.WASP, "report", "--format", "html", "--top", PAGE_TOP, "-o", page] + profs)
    H.check(rh.rc == 0, "wasp report --format html exited %d: %s" % (rh.rc, H.tail(rh.err)))
    with open(page, encoding="utf-8") as f:
        static_checks(f.read(), rj.out)

    d = dump(ctx, browser, page)
    H.check(all(s in d.sections for s in SECTIONS), "sections drawn: %s, expected %s" % (d.sections, SECTIONS))
    leaves = {"fields": "k-field", "alloc": "k-alloc", "locks": "k-lock"}
    for name, (table, cls) in top.items():
        rows = d.tables.get(table) or []
        H.check(rows, "no rows in the %s table (tables: %s)" % (table, sorted(d.tables)))
        first = rows[0]
        H.check(first["cells"][0] == "#1" and any(cls in c for c in first["cells"]),
                "%s: the #1 row %s does not name %s" % (table, first["cells"], cls))
        # fields and locks open the #1 entry's contexts under its row.
        if name != "alloc":
            more = rows[1] if len(rows) > 1 else {"attrs": {}, "frames": []}
            H.check("more" in (more["attrs"].get("class") or "") and "hidden" not in more["attrs"],
                    "%s: the #1 row's contexts are not open under it" % table)
            H.check(any("k-java" in (li.get("class") or "") for li in more["frames"]),
                    "%s: the #1 row's contexts show no Java frame" % table)
        leaf = [fr.get("data-method") for fr in d.frames if leaves[name] in fr["classes"]]
        H.check(any(cls in (m or "") for m in leaf), "%s: no %s leaf frame names %s (%s)"
                % (name, leaves[name], cls, ", ".join(sorted(set(leaf))[:6])))

    lock = top["locks"][1]
    short = lock.rsplit("$", 1)[-1]  # "HotLock"
    found = dump(ctx, browser, page, "#search=" + short)
    hits = {fr.get("data-method") for fr in found.frames if "match" in fr["classes"]}
    H.check("lock " + lock in hits, "searching %r highlights no frame of the lock %s" % (short, lock))
    H.check(all(short in (m or "") for m in hits), "searching %r highlights %s" % (short, sorted(hits)))

    shot = os.path.join(H.ROOT, SECTIONS_SCREENSHOT)
    if os.path.exists(shot):
        os.unlink(shot)
    browse(ctx, browser, page, ["--hide-scrollbars", "--window-size=1300,3200", "--screenshot=" + shot])
    H.check(os.path.isfile(shot) and os.path.getsize(shot) > 1000, "no screenshot written at %s" % shot)
    return "#1: %s; %d frames; screenshot %s" % (
        ", ".join("%s %s" % (n, c) for n, (t, c) in top.items()), len(d.frames), SECTIONS_SCREENSHOT)


def t_html_warning(ctx, jdk):
    """A run whose watch budget allowed next to nothing: the JSON report warns
    that its fractions rest on too few armed samples, and the page shows each
    of its warnings, word for word, above the sections."""
    browser = chromium()
    prof = ctx.path("thin.wprof")
    r = H.run([H.WASP, "run", "-e", "deadstore", "--watch-budget", "0.001%", "-o", prof, "-q", "--",
               jdk.java, "-cp", H.CLASSES, WORKLOAD, "300"])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rj = H.run([H.WASP, "report", "--format", "json", "--top", PAGE_TOP, prof])
    H.check(rj.rc == 0, "wasp report --format json exited %d: %s" % (rj.rc, H.tail(rj.err)))
    rep = json.loads(rj.out)
    warnings = rep.get("warnings")
    H.check(warnings and all("armed" in w for w in warnings),
            "a budget of 0.001%% (%s armed, %s dropped.budget) gave the warnings %r" % (
                rep["counters"].get("armed"), rep["counters"].get("dropped.budget"), warnings))
    page = ctx.path("thin.html")
    rh = H.run([H.WASP, "report", "--format", "html", "--top", PAGE_TOP, "-o", page, prof])
    H.check(rh.rc == 0, "wasp report --format html exited %d: %s" % (rh.rc, H.tail(rh.err)))
    r = browse(ctx, browser, page, ["--dump-dom"])
    d = Warnings(r.out)
    H.check(d.body is not None and d.body.get("data-ready") == "1" and not d.body.get("data-errors"),
            "the page's script did not finish: %s" % (d.body or {}).get("data-errors"))
    H.check(d.warnings == warnings, "the page shows the warnings %r, the report %r" % (d.warnings, warnings))
    return "%s" % warnings[0][:60]
