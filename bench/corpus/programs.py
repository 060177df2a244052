"""The corpus: real programs from Debian packages, each with a driver and
inputs made here (nothing downloaded). Used by bench/corpus.py (the
benchmark) and tests/integration/corpus.py (the smoke tests of `make check`).

Each program is a Program: the Debian packages and jars it needs, how to make
its inputs (once, into build/corpus/inputs/NAME, kept between runs), the java
arguments of one run at a size ("short": 3-8 s, "full": 10-60 s on the 2-core
development VM, without the agent), and how to reduce its output to a digest
that a profiled run must reproduce exactly.

Drivers (bench/corpus/*.java) are compiled into build/corpus/classes. Every
program runs with a fixed heap (-Xms/-Xmx), so peak RSS depends less on how the
collector sizes the heap from one run to the next.
"""

import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build", "corpus")
CLASSES = os.path.join(BUILD, "classes")
INPUTS = os.path.join(BUILD, "inputs")
J = "/usr/share/java/"
HEAP = ["-Xms512m", "-Xmx512m"]


class Missing(Exception):
    """A package or input this program needs is not here (the reason)."""


class Program:
    def __init__(self, name, packages, jars, what, sizes, make_inputs, args, digest,
                 driver=None, inputs_on_classpath=False):
        self.name = name
        self.packages = packages      # Debian packages (scripts/install-deps.sh)
        self.jars = jars              # under /usr/share/java unless absolute
        self.what = what              # one line for the docs and the table
        self.sizes = sizes            # {"short": x, "full": y}: the size argument
        self.make_inputs = make_inputs  # fn(dir) writing the inputs into dir
        self.args = args              # fn(dir, size, out) -> java arguments after the heap
        self.digest = digest          # fn(stdout, out) -> text that must not change
        self.driver = driver          # bench/corpus/<driver>.java, or None
        self.inputs_on_classpath = inputs_on_classpath  # resources among the inputs

    def classpath(self):
        cp = [j if j.startswith("/") else J + j for j in self.jars]
        if self.driver:
            cp.append(CLASSES)
        return cp

    def check_installed(self):
        for j in self.classpath():
            if j != CLASSES and not os.path.exists(j):
                raise Missing("%s is not installed (%s missing; scripts/install-deps.sh)"
                              % (" ".join(self.packages), j))

    def prepare(self, javac):
        """Checks the packages, compiles the driver, makes the inputs (once).
        Returns the inputs directory. Raises Missing."""
        self.check_installed()
        if self.driver:
            compile_driver(javac, self)
        d = os.path.join(INPUTS, self.name)
        stamp = os.path.join(d, ".done")
        if not os.path.exists(stamp):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            self.make_inputs(d)
            open(stamp, "w").close()
        return d

    def command(self, java, inputs, size, out):
        """The java command of one run; out is a fresh directory for its output."""
        cp = self.classpath() + ([inputs] if self.inputs_on_classpath else [])
        return [java] + HEAP + ["-cp", ":".join(cp)] + self.args(inputs, size, out)


def compile_driver(javac, prog):
    src = os.path.join(HERE, prog.driver + ".java")
    cls = os.path.join(CLASSES, prog.driver + ".class")
    if os.path.exists(cls) and os.path.getmtime(cls) >= os.path.getmtime(src):
        return
    os.makedirs(CLASSES, exist_ok=True)
    cp = ":".join(c for c in prog.classpath() if c != CLASSES)
    r = subprocess.run([javac, "--release", "17", "-nowarn", "-d", CLASSES, "-cp", cp, src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("javac %s failed: %s" % (src, r.stdout[-2000:]))


def checksum_line(out, _dir):
    m = re.findall(r"^checksum: (\S+)\s*$", out, re.M)
    return m[-1] if m else None


def tree_digest(sub):
    """Digest of every file under out/sub (names and contents)."""
    def fn(_out, outdir):
        h, n = hashlib.sha256(), 0
        base = os.path.join(outdir, sub)
        for dirpath, dirs, files in os.walk(base):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                h.update(os.path.relpath(p, base).encode())
                with open(p, "rb") as fh:
                    h.update(fh.read())
                n += 1
        return "%d files %s" % (n, h.hexdigest()[:16]) if n else None
    return fn


# ---------------------------------------------------------------- inputs

def words(rnd, n):
    """n made-up words (pronounceable: consonant-vowel syllables)."""
    cons, vow = "bcdfghjklmnprstvwz", "aeiou"
    out = set()
    while len(out) < n:
        out.add("".join(rnd.choice(cons) + rnd.choice(vow) for _ in range(rnd.randint(1, 4))))
    return sorted(out)


def zipf_pick(rnd, vocab):
    # Rank r drawn with probability about 1/r: common words common, a long tail.
    return vocab[min(len(vocab) - 1, int(len(vocab) ** rnd.random()) - 1)]


def batik_inputs(d):
    # SVG files that Debian packages installed (icons, documentation), sorted
    # by name; the sunflow package always brings one (its icon).
    found = sorted(set(glob.glob("/usr/share/icons/**/*.svg", recursive=True) +
                       glob.glob("/usr/share/doc/**/*.svg", recursive=True)))
    if not found:
        raise Missing("no SVG file under /usr/share/icons or /usr/share/doc")
    # Spread over the list: different icon themes and sizes, at most 60 files.
    step = max(1, len(found) // 60)
    with open(os.path.join(d, "svgs.txt"), "w") as f:
        f.write("\n".join(found[::step][:60]) + "\n")


def xalan_inputs(d):
    rnd = random.Random(38)
    vocab = words(rnd, 400)
    items = []
    for i in range(3000):
        items.append('<item id="i%d" category="c%d" price="%d.%02d" stock="%d">'
                     '<name>%s</name><desc>%s</desc></item>'
                     % (i, rnd.randint(0, 39), rnd.randint(1, 999), rnd.randint(0, 99),
                        rnd.randint(0, 500), " ".join(zipf_pick(rnd, vocab) for _ in range(3)),
                        " ".join(zipf_pick(rnd, vocab) for _ in range(rnd.randint(8, 30)))))
    with open(os.path.join(d, "catalog.xml"), "w") as f:
        f.write('<?xml version="1.0"?>\n<catalog>\n' + "\n".join(items) + "\n</catalog>\n")
    # Grouping by key, sorting, number formatting, string functions: the kind
    # of stylesheet DaCapo's xalan runs (an XML-to-HTML report).
    xsl = """<?xml version="1.0"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" indent="yes"/>
  <xsl:param name="round" select="0"/>
  <xsl:key name="bycat" match="item" use="@category"/>
  <xsl:template match="/catalog">
    <html><body>
      <h1>Catalog, <xsl:value-of select="count(item)"/> items</h1>
      <xsl:for-each select="item[generate-id() = generate-id(key('bycat', @category)[1])]">
        <xsl:sort select="@category"/>
        <xsl:variable name="c" select="key('bycat', @category)"/>
        <h2><xsl:value-of select="@category"/>: <xsl:value-of select="count($c)"/> items,
          total <xsl:value-of select="format-number(sum($c/@price), '#,##0.00')"/></h2>
        <table>
          <xsl:for-each select="$c">
            <xsl:sort select="@price" data-type="number" order="descending"/>
            <xsl:if test="position() mod 3 != $round">
              <tr>
                <td><xsl:value-of select="position()"/></td>
                <td><xsl:value-of select="translate(name, 'aeiou', 'AEIOU')"/></td>
                <td><xsl:value-of select="substring(desc, 1, 40)"/></td>
                <td><xsl:value-of select="string-length(normalize-space(desc))"/></td>
                <td><xsl:value-of select="format-number(@price * @stock, '0.00')"/></td>
              </tr>
            </xsl:if>
          </xsl:for-each>
        </table>
      </xsl:for-each>
    </body></html>
  </xsl:template>
</xsl:stylesheet>
"""
    with open(os.path.join(d, "report.xsl"), "w") as f:
        f.write(xsl)


def lucene_inputs(d):
    rnd = random.Random(4104)
    vocab = words(rnd, 20000)
    with open(os.path.join(d, "docs.txt"), "w") as f:
        for _ in range(120000):
            f.write(" ".join(zipf_pick(rnd, vocab) for _ in range(rnd.randint(20, 120))) + "\n")
    with open(os.path.join(d, "queries.txt"), "w") as f:
        for i in range(400):
            a, b, c = (zipf_pick(rnd, vocab[:3000]) for _ in range(3))
            f.write([a, "%s %s" % (a, b), "+%s +%s" % (a, b), '"%s %s"' % (a, b),
                     "%s* %s" % (a[:2], c), "%s~ -%s" % (a, c)][i % 6] + "\n")


def lucene_docs(d, size):
    """The first `size` thousand documents (a prefix of docs.txt)."""
    path = os.path.join(d, "docs-%d.txt" % size)
    if not os.path.exists(path):
        with open(os.path.join(d, "docs.txt")) as src, open(path + ".tmp", "w") as dst:
            for i, line in enumerate(src):
                if i >= size * 1000:
                    break
                dst.write(line)
        os.rename(path + ".tmp", path)
    return path


def h2_inputs(d):
    rnd = random.Random(1203)
    vocab = words(rnd, 300)
    s = ["CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(40), city VARCHAR(20), balance DECIMAL(12,2));",
         "CREATE TABLE product(id INT PRIMARY KEY, title VARCHAR(60), price DECIMAL(10,2), kind INT);",
         "CREATE TABLE orders(id INT PRIMARY KEY, customer INT, product INT, qty INT, odate DATE);",
         "CREATE INDEX orders_customer ON orders(customer);",
         "CREATE INDEX orders_product ON orders(product);"]
    for i in range(1000):
        s.append("INSERT INTO customer VALUES(%d, '%s %s', '%s', %d.%02d);"
                 % (i, rnd.choice(vocab), rnd.choice(vocab), rnd.choice(vocab[:30]),
                    rnd.randint(0, 9999), rnd.randint(0, 99)))
    for i in range(300):
        s.append("INSERT INTO product VALUES(%d, '%s', %d.%02d, %d);"
                 % (i, " ".join(rnd.choice(vocab) for _ in range(3)), rnd.randint(1, 500),
                    rnd.randint(0, 99), rnd.randint(0, 19)))
    for i in range(8000):
        s.append("INSERT INTO orders VALUES(%d, %d, %d, %d, DATE '2025-%02d-%02d');"
                 % (i, rnd.randint(0, 999), rnd.randint(0, 299), rnd.randint(1, 9),
                    rnd.randint(1, 12), rnd.randint(1, 28)))
    for k in range(30):
        city = rnd.choice(vocab[:30])
        s += ["SELECT c.city, COUNT(*), SUM(o.qty * p.price) FROM orders o JOIN customer c ON o.customer = c.id "
              "JOIN product p ON o.product = p.id WHERE p.kind = %d GROUP BY c.city ORDER BY 3 DESC, 1;" % (k % 20),
              "SELECT name, balance FROM customer WHERE city = '%s' ORDER BY balance DESC, id LIMIT 20;" % city,
              "UPDATE customer SET balance = balance + 1 WHERE city = '%s';" % city,
              "SELECT p.title, SUM(o.qty) q FROM orders o JOIN product p ON o.product = p.id "
              "WHERE MONTH(o.odate) = %d GROUP BY p.title ORDER BY q DESC, p.title LIMIT 10;" % (k % 12 + 1),
              "DELETE FROM orders WHERE id %% 997 = %d;" % k,
              "SELECT COUNT(*), AVG(qty), MAX(odate) FROM orders WHERE customer BETWEEN %d AND %d;"
              % (k * 30, k * 30 + 200)]
    with open(os.path.join(d, "workload.sql"), "w") as f:
        f.write("\n".join(s) + "\n")


def rhino_inputs(d):
    # Objects, closures, strings, arrays, sorting, a regular expression and a
    # small expression interpreter: what scripts on Rhino do. ROUNDS from argv.
    js = r"""
var rounds = parseInt(arguments[0]);
function Vec(x, y) { this.x = x; this.y = y; }
Vec.prototype.add = function (o) { return new Vec(this.x + o.x, this.y + o.y); };
function lcg(s) { return function () { s = (s * 1103515245 + 12345) % 2147483648; return s; }; }
function parse(src) {
  var pos = 0;
  function peek() { return src.charAt(pos); }
  function num() { var s = pos; while (/[0-9]/.test(peek())) pos++; return { k: 'n', v: parseInt(src.substring(s, pos)) }; }
  function atom() { if (peek() == '(') { pos++; var e = sum(); pos++; return e; } return num(); }
  function prod() { var l = atom(); while (peek() == '*') { pos++; l = { k: '*', l: l, r: atom() }; } return l; }
  function sum() { var l = prod(); while (peek() == '+' || peek() == '-') { var op = peek(); pos++; l = { k: op, l: l, r: prod() }; } return l; }
  return sum();
}
function ev(e) { switch (e.k) { case 'n': return e.v; case '+': return ev(e.l) + ev(e.r);
  case '-': return ev(e.l) - ev(e.r); default: return (ev(e.l) * ev(e.r)) % 1000003; } }
var check = 0;
for (var r = 0; r < rounds; r++) {
  var rnd = lcg(r % 5 + 1);
  var pts = [];
  for (var i = 0; i < 20000; i++) pts.push(new Vec(rnd() % 1000, rnd() % 1000));
  var acc = new Vec(0, 0);
  for (var i = 0; i < pts.length; i++) acc = acc.add(pts[i]);
  pts.sort(function (a, b) { return a.x - b.x || a.y - b.y; });
  var words = {};
  for (var i = 0; i < 20000; i++) {
    var w = 'w' + (rnd() % 3000).toString(36);
    words[w] = (words[w] || 0) + 1;
  }
  var keys = Object.keys(words).sort();
  var text = keys.join(' ');
  var m = text.match(/w[a-z]+[0-9]/g) || [];
  var exprs = [];
  for (var i = 0; i < 300; i++)
    exprs.push('(' + (rnd() % 100) + '+' + (rnd() % 100) + ')*' + (rnd() % 50) + '-' + (rnd() % 7) + '*(' + (rnd() % 9) + '+1)');
  var total = 0;
  for (var i = 0; i < exprs.length; i++) total = (total + ev(parse(exprs[i]))) % 1000003;
  check = (check * 31 + acc.x + acc.y + pts[100].x + keys.length + m.length + total) % 2147483647;
}
print('checksum: ' + check);
"""
    with open(os.path.join(d, "work.js"), "w") as f:
        f.write(js)


PACKAGES, CLASSES_PER_PACKAGE = 6, 8


def ant_inputs(d):
    # N packages of classes that use each other, generics and inner classes:
    # javac's work on a real code base (ant's javac task, in-process).
    src = os.path.join(d, "src")
    rnd = random.Random(1013)
    for p in range(PACKAGES):
        pd = os.path.join(src, "gen", "p%d" % p)
        os.makedirs(pd)
        for c in range(CLASSES_PER_PACKAGE):
            other = "gen.p%d.C%d" % (rnd.randint(0, p), rnd.randint(0, CLASSES_PER_PACKAGE - 1))
            body = ["package gen.p%d;" % p, "import java.util.*;",
                    "public class C%d<T extends Comparable<T>> {" % c,
                    "  private final List<T> items = new ArrayList<>();",
                    "  private final Map<String, Integer> counts = new HashMap<>();",
                    "  public interface Visitor<R> { R visit(int i, String s); }"]
            for m in range(8):
                body += ["  public int m%d(int x, String s) {" % m,
                         "    int r = x * %d + s.length();" % rnd.randint(2, 99),
                         "    for (int i = 0; i < x %% %d; i++) { r ^= (r << 3) + i; counts.merge(s + i, 1, Integer::sum); }" % rnd.randint(3, 17),
                         "    switch (r & 3) { case 0: r += %d; break; case 1: r -= m%d(r >> 4, s); break; default: r *= 3; }" % (m, max(0, m - 1)) if m else "    r += 1;",
                         "    final int rr = r;",
                         "    Visitor<Integer> v = (i, t) -> i + t.hashCode() + rr;",
                         "    return v.visit(r, \"m%d\" + s);" % m,
                         "  }"]
            body += ["  public static final class Inner implements Comparable<Inner> {",
                     "    final long k; Inner(long k) { this.k = k; }",
                     "    public int compareTo(Inner o) { return Long.compare(k, o.k); }",
                     "  }",
                     "  public Object peer() { return %s.class; }" % other,
                     "}"]
            with open(os.path.join(pd, "C%d.java" % c), "w") as f:
                f.write("\n".join(body) + "\n")


def ant_buildfile(d, size, out):
    """build.xml compiling the sources `size` times, each into its own
    directory (javac in the ant JVM: fork false)."""
    targets = []
    for i in range(size):
        targets.append('  <mkdir dir="%s/r%d"/>\n  <javac srcdir="%s/src" destdir="%s/r%d" '
                       'includeantruntime="false" fork="false" release="17" debug="true" '
                       'nowarn="true"/>' % (out, i, d, out, i))
    path = os.path.join(out, "build.xml")
    with open(path, "w") as f:
        f.write('<project name="corpus" default="all">\n <target name="all">\n%s\n </target>\n</project>\n'
                % "\n".join(targets))
    return path


def sablecc_inputs(d):
    sys.path.insert(0, os.path.dirname(HERE))
    import sablecc_grammar
    for n in (60, 120, 180):
        with open(os.path.join(d, "g%d.sablecc" % n), "w") as f:
            f.write(sablecc_grammar.grammar(n))


def made_dir(parent, name):
    path = os.path.join(parent, name)
    os.makedirs(path, exist_ok=True)
    return path


def sunflow_inputs(d):
    # Debian's sunflow jar has no reference images for its benchmark; -regen
    # renders them (sizes 32 to 512, ~45 s once), and -bench then checks its
    # frame against the one for its size.
    os.makedirs(os.path.join(d, "resources"))
    r = subprocess.run(["java", "-cp", J + "sunflow.jar", "org.sunflow.Benchmark", "-regen"],
                       cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("sunflow -regen failed: %s" % r.stdout[-1500:])


def sunflow_digest(out, _dir):
    return "image check passed" if "Image check passed!" in out else None


def no_inputs(_d):
    pass


FOP_SECTIONS = {"short": 120, "full": 400}


def fop_inputs(d):
    """An XSL-FO document per size: SIZE sections, each a heading, six
    justified paragraphs of made-up words and an 8-row table whose cells
    have a border shorthand ("0.5pt solid black", as documents write it)."""
    rnd = random.Random(2811)
    vocab = words(rnd, 3000)
    for n in FOP_SECTIONS.values():
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               '<fo:root xmlns:fo="http://www.w3.org/1999/XSL/Format">',
               '<fo:layout-master-set><fo:simple-page-master master-name="A4" '
               'page-height="29.7cm" page-width="21cm" margin="2cm"><fo:region-body/>'
               '</fo:simple-page-master></fo:layout-master-set>',
               '<fo:page-sequence master-reference="A4"><fo:flow flow-name="xsl-region-body">']
        for sec in range(n):
            out.append('<fo:block font-size="14pt" font-weight="bold" space-before="8pt" '
                       'keep-with-next="always">Section %d</fo:block>' % (sec + 1))
            for _ in range(6):
                out.append('<fo:block text-align="justify" space-after="4pt">%s</fo:block>'
                           % " ".join(zipf_pick(rnd, vocab) for _ in range(rnd.randint(40, 120))))
            out.append('<fo:table table-layout="fixed" width="100%"><fo:table-column '
                       'column-width="25%"/><fo:table-column column-width="25%"/>'
                       '<fo:table-column column-width="50%"/><fo:table-body>')
            for _ in range(8):
                out.append('<fo:table-row>' + "".join(
                    '<fo:table-cell border="0.5pt solid black" padding="2pt"><fo:block>%s'
                    '</fo:block></fo:table-cell>' % " ".join(zipf_pick(rnd, vocab)
                                                             for _ in range(k))
                    for k in (2, 3, 9)) + '</fo:table-row>')
            out.append('</fo:table-body></fo:table>')
        out.append('</fo:flow></fo:page-sequence></fo:root>')
        with open(os.path.join(d, "doc%d.fo" % n), "w") as f:
            f.write("\n".join(out) + "\n")


def fop_digest(_out, outdir):
    """The PDF without its dates (the info dictionary's, the XMP metadata's)
    and file identifier, which change from run to run."""
    try:
        with open(os.path.join(outdir, "doc.pdf"), "rb") as f:
            pdf = f.read()
    except OSError:
        return None
    pages = len(re.findall(rb"/Type /Page\b(?!s)", pdf))
    pdf = re.sub(rb"/ID \[[^\]]*\]|D:\d{14}Z?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)?",
                 b"", pdf)
    return "%d pages %s" % (pages, hashlib.sha256(pdf).hexdigest()[:16]) if pages else None


PROGRAMS = [
    Program("sunflow", ["sunflow"], ["sunflow.jar"],
            "renders sunflow's own benchmark scene (DaCapo's sunflow) with 2 threads at SIZE px "
            "and checks the frame against the reference it rendered at set-up",
            {"short": 128, "full": 256}, sunflow_inputs,
            lambda d, s, o: ["org.sunflow.Benchmark", "-bench", "2", str(s)], sunflow_digest,
            inputs_on_classpath=True),
    Program("batik", ["libbatik-java"], ["batik-all.jar", "xml-apis-ext.jar"],
            "rasterizes up to 60 SVG files found under /usr/share/icons and /usr/share/doc "
            "to 512x512 PNG, SIZE rounds",
            {"short": 1, "full": 3}, batik_inputs,
            lambda d, s, o: ["BatikDriver", str(s), os.path.join(d, "svgs.txt"), "512"],
            checksum_line, "BatikDriver"),
    Program("xalan", ["libxalan2-java"], ["xalan2.jar", "serializer.jar"],
            "compiles a generated XSLT report (keys, grouping, sorting, number formatting) "
            "and transforms a generated 3,000-item catalog with it, SIZE rounds",
            {"short": 15, "full": 50}, xalan_inputs,
            lambda d, s, o: ["XalanDriver", str(s), os.path.join(d, "catalog.xml"),
                             os.path.join(d, "report.xsl")], checksum_line, "XalanDriver"),
    Program("lucene", ["liblucene4.10-java"],
            ["lucene-core-4.10.4.jar", "lucene-analyzers-common-4.10.4.jar",
             "lucene-queryparser-4.10.4.jar"],
            "indexes SIZE thousand generated documents (Zipf-distributed made-up words), "
            "then runs 400 generated queries 4 times from 2 threads (luindex + lusearch)",
            {"short": 3, "full": 10}, lucene_inputs,
            lambda d, s, o: ["LuceneDriver", lucene_docs(d, s), os.path.join(d, "queries.txt"),
                             os.path.join(o, "index"), "4"], checksum_line, "LuceneDriver"),
    Program("h2", ["libh2-java"], ["h2.jar"],
            "runs a generated SQL script (3 tables, 9,300 inserts, 90 joins, aggregates, "
            "updates and deletes) on an in-memory database, SIZE rounds",
            {"short": 1, "full": 3}, h2_inputs,
            lambda d, s, o: ["H2Driver", str(s), os.path.join(d, "workload.sql")],
            checksum_line, "H2Driver"),
    Program("rhino", ["rhino"], ["js.jar"],
            "interprets a generated JavaScript program (objects, closures, sorting, regular "
            "expressions, a small expression parser), SIZE rounds",
            {"short": 12, "full": 60}, rhino_inputs,
            lambda d, s, o: ["org.mozilla.javascript.tools.shell.Main", os.path.join(d, "work.js"),
                             str(s)], checksum_line),
    Program("ant", ["ant"], ["/usr/share/ant/lib/ant-launcher.jar"],
            "ant compiles 48 generated classes (6 packages; generics, lambdas, inner "
            "classes) with javac in its own JVM, SIZE times",
            {"short": 1, "full": 2}, ant_inputs,
            lambda d, s, o: ["-Dant.home=/usr/share/ant", "org.apache.tools.ant.launch.Launcher",
                             "-q", "-f", ant_buildfile(d, s, o)], tree_digest("r0")),
    Program("jfreechart", ["libjfreechart-java"], ["jfreechart.jar", "jcommon.jar"],
            "renders line (4 x 5,000 points), bar and pie charts of seeded data into "
            "800x600 images, SIZE rounds",
            {"short": 12, "full": 50}, no_inputs,
            lambda d, s, o: ["-Djava.awt.headless=true", "ChartDriver", str(s), "5000"],
            checksum_line, "ChartDriver"),
    Program("sablecc", ["sablecc"], ["sablecc.jar"],
            "SableCC generates a parser from a generated grammar of SIZE keywords "
            "(bench/sablecc_grammar.py)",
            {"short": 60, "full": 120}, sablecc_inputs,
            lambda d, s, o: ["org.sablecc.sablecc.SableCC", "-d", made_dir(o, "gen"),
                             os.path.join(d, "g%d.sablecc" % s)], tree_digest("gen")),
    Program("pdfbox", ["libpdfbox2-java"], ["pdfbox2.jar", "fontbox2.jar", "commons-logging.jar"],
            "writes a PDF of 40 pages of generated text, parses it back and extracts the "
            "text, SIZE rounds",
            {"short": 3, "full": 10}, no_inputs,
            lambda d, s, o: ["PdfboxDriver", str(s), "40"], checksum_line, "PdfboxDriver"),
    Program("fop", ["libfop-java"],
            ["fop.jar", "xmlgraphics-commons.jar", "commons-io.jar", "commons-logging.jar",
             "batik-all.jar", "fontbox2.jar", "xml-apis-ext.jar"],
            "Apache FOP (DaCapo's fop) renders a generated XSL-FO document of SIZE sections "
            "(justified paragraphs, bordered tables) to PDF",
            FOP_SECTIONS, fop_inputs,
            lambda d, s, o: ["-Dorg.apache.commons.logging.Log="
                             "org.apache.commons.logging.impl.NoOpLog",  # a line per page else
                             "org.apache.fop.cli.Main", "-q", "-fo",
                             os.path.join(d, "doc%d.fo" % s), "-pdf", os.path.join(o, "doc.pdf")],
            fop_digest),
]

BY_NAME = {p.name: p for p in PROGRAMS}
