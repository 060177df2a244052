// wasp's HTML report: builds the page from the JSON report embedded in it
// (#wasp-data, docs/report-json.md). No libraries and no network: the page
// must open from disk anywhere. Frames in the JSON are root first, leaf last.
// This is the frame: the header, the summary, the search, flame graphs and ranked tables
// (waspReport.kit). Each analysis draws its own section with a script of its
// own (src/analysis/NAME/report.js, cli/render/html_part.h), loaded after this one,
// that registers it: waspReport.section(NAME, draw, {legend}). Then
// waspReport.draw() draws every member of the JSON that has a section, in
// the JSON's order; nothing here names an analysis.
'use strict';

const waspReport = (function () {
  const rep = JSON.parse(document.getElementById('wasp-data').textContent);
  const app = document.getElementById('app');
  const graphs = []; // every flame graph, for the search
  const ROW = 17; // px per flame-graph row (.fr height in report.css)
  const MAX_ROWS = 500; // table rows; the flame graphs take every entry

  const { el, isNum, num, pct, bytes, frameName, leafName, context, kvTable } = waspUi; // common.js
  const MAX_CONTEXTS = 20; // contexts opened under a table row

  // ---- flame graphs (root on top): nodes merge frames with the same
  // method, line and kind under the same parent.

  function FlameGraph(title, unit, unit2) {
    this.title = title;
    this.unit = unit;   // what the width measures: 'bytes' or a sample unit
    this.unit2 = unit2; // a second sum shown in tooltips ('count'), or null
    this.root = this.node(null, { method: 'all', kind: 'root' });
    this.zoom = this.root;
    this.selected = null;
    this.query = '';
  }
  FlameGraph.prototype.node = function (parent, f) {
    return { parent: parent, frame: f, kids: new Map(), w: 0, w2: 0, insns: new Map(),
             tags: new Set(), depth: parent ? parent.depth + 1 : 0 };
  };
  // One context: frames root first; weight its width; tag: what selecting
  // it in a table highlights (the entry's index, or a list of such tags).
  FlameGraph.prototype.add = function (frames, weight, weight2, insn, tag) {
    if (!(weight > 0)) return;
    let n = this.root;
    const tags = Array.isArray(tag) ? tag : [tag];
    const visit = function (m) { m.w += weight; m.w2 += weight2 || 0; for (const t of tags) m.tags.add(t); };
    visit(n);
    for (const f of frames) {
      const key = (f.kind || '') + '\u0000' + frameName(f) + '\u0000' + (f.file || '');
      let k = n.kids.get(key);
      if (!k) { k = this.node(n, f); n.kids.set(key, k); }
      visit(k);
      n = k;
    }
    if (insn) n.insns.set(insn, (n.insns.get(insn) || 0) + weight);
  };
  FlameGraph.prototype.tooltip = function (n) {
    const f = n.frame;
    const lines = [n === this.root ? 'all' : frameName(f) + (f.file ? '  (' + f.file + ')' : ''),
                   'kind: ' + (f.kind || 'unknown'),
                   this.unit + ': ' + (this.unit === 'bytes' ? bytes(n.w) : num(n.w)) +
                     ' (' + pct(n.w / this.root.w) + ' of this graph)'];
    if (this.unit2) lines.push(this.unit2 + ': ' + num(n.w2));
    if (n.insns.size) {
      const sorted = [...n.insns.entries()].sort((a, b) => b[1] - a[1]);
      lines.push('instruction: ' + sorted[0][0] +
                 (sorted.length > 1 ? '  (+' + (sorted.length - 1) + ' more here)' : ''));
    }
    lines.push('click to zoom' + (n === this.zoom && n !== this.root ? ' out' : ''));
    return lines.join('\n');
  };
  FlameGraph.prototype.matches = function (n) {
    const q = this.query.toLowerCase();
    return q !== '' && n !== this.root &&
      (frameName(n.frame).toLowerCase().includes(q) || (n.frame.file || '').toLowerCase().includes(q));
  };
  FlameGraph.prototype.build = function (parent) {
    this.box = el('div', { class: 'flame' });
    this.status = el('div', { class: 'note' });
    parent.append(el('div', {}, [el('h3', { text: this.title }), this.box, this.status]));
    this.draw();
  };
  FlameGraph.prototype.draw = function () {
    const g = this;
    const zx = g.offset(g.zoom), zw = g.zoom.w;
    let depth = 0, matched = 0;
    const frag = document.createDocumentFragment();
    // x: the node's start, in weight units from the root's left edge.
    const walk = function (n, x, inMatch) {
      const hit = g.matches(n);
      if (hit && !inMatch) matched += n.w; // outermost matches only: no double count
      const left = Math.max(0, (x - zx) / zw), right = Math.min(1, (x + n.w - zx) / zw);
      if (right - left < 0.0005) return; // outside the zoom, or too narrow to see
      depth = Math.max(depth, n.depth);
      const f = n.frame;
      const cls = ['fr', 'k-' + (n === g.root ? 'root' : f.kind || 'unknown')];
      if (hit) cls.push('match');
      if (g.selected !== null && n !== g.root && n.tags.has(g.selected)) cls.push('sel');
      if (n === g.zoom && n !== g.root) cls.push('zoomed');
      const d = el('div', { class: cls.join(' '), title: g.tooltip(n), 'data-method': f.method || '',
                            text: n === g.root ? 'all (' + g.amount(n.w) + ')' : frameName(f) });
      d.style.left = (100 * left) + '%';
      d.style.width = (100 * (right - left)) + '%';
      d.style.top = (n.depth * ROW) + 'px';
      d.addEventListener('click', function () { g.zoomTo(n === g.zoom ? (n.parent || g.root) : n); });
      frag.append(d);
      let kx = x;
      for (const k of [...n.kids.values()].sort((a, b) => b.w - a.w)) {
        walk(k, kx, inMatch || hit);
        kx += k.w;
      }
    };
    if (g.root.w > 0) walk(g.root, 0, false);
    g.box.textContent = '';
    g.box.style.height = ((depth + 1) * ROW + 1) + 'px';
    g.box.append(frag);
    g.status.textContent = g.root.w > 0
      ? (g.query ? 'search "' + g.query + '": ' + pct(matched / g.root.w) + ' of ' + g.unit + '. ' : '') +
        (g.zoom !== g.root ? 'Zoomed: click the underlined frame to zoom out.' : 'Click a frame to zoom.')
      : 'Nothing to show.';
  };
  FlameGraph.prototype.amount = function (w) { return this.unit === 'bytes' ? bytes(w) : num(w) + ' ' + this.unit; };
  // A node's left edge: the weights of the siblings drawn before it, up to the root.
  FlameGraph.prototype.offset = function (n) {
    let x = 0;
    for (; n.parent; n = n.parent) {
      for (const k of [...n.parent.kids.values()].sort((a, b) => b.w - a.w)) {
        if (k === n) break;
        x += k.w;
      }
    }
    return x;
  };
  FlameGraph.prototype.zoomTo = function (n) { this.zoom = n; this.draw(); };
  FlameGraph.prototype.select = function (tag) { this.selected = tag; if (this.box) this.draw(); };

  // ---- a ranked table whose rows select an entry in the graphs. opt.name
  // names the table (data-table); opt.tag(e, i): what a row selects in the
  // graphs (default its index; with a tag, the first row is not selected at
  // first); opt.details(e): the nodes a click on the row opens under it
  // (built when first opened; the first row's are open at first).

  function rankTable(heads, entries, cells, graphsOf, opt) {
    opt = opt || {};
    const tag = opt.tag || ((e, i) => i);
    const body = el('tbody');
    const rows = [], opened = [];
    entries.slice(0, MAX_ROWS).forEach(function (e, i) {
      const tr = el('tr', { onclick: function () { select(i); toggle(i); } },
        [el('td', { class: 'num', text: '#' + (i + 1) })].concat(cells(e).map(c =>
          el('td', { class: typeof c === 'object' ? 'num' : '', text: typeof c === 'object' ? c.n : c }))));
      rows.push(tr);
      body.append(tr);
    });
    function toggle(i) {
      if (!opt.details) return;
      if (!opened[i]) {
        opened[i] = el('tr', { class: 'more', hidden: '' },
                       [el('td', { colspan: String(heads.length + 1) }, opt.details(entries[i]))]);
        rows[i].after(opened[i]);
      }
      opened[i].hidden = !opened[i].hidden;
      rows[i].classList.toggle('open', !opened[i].hidden);
    }
    function select(i) {
      rows.forEach((r, j) => r.classList.toggle('sel', i === j));
      for (const g of graphsOf) g.select(tag(entries[i], i));
    }
    const table = el('table', { class: 'rank', 'data-table': opt.name || '' }, [
      el('thead', {}, [el('tr', {}, [el('th', { text: '#' })].concat(heads.map(h =>
        el('th', { class: h.startsWith('=') ? 'num' : '', text: h.replace(/^=/, '') }))))]),
      body]);
    const more = entries.length > MAX_ROWS
      ? el('p', { class: 'note', text: (entries.length - MAX_ROWS) + ' more entries are in the flame graphs only.' })
      : null;
    app.append(table);
    if (more) app.append(more);
    if (entries.length) { if (!opt.tag) select(0); toggle(0); }
    return { select: select };
  }
  const N = v => ({ n: v }); // a right-aligned cell

  // ---- the sections

  // The page opens with what ran and the summary (the JSON's "summary":
  // each analysis's top findings, their cost in CPU and what to try); how it
  // was measured is folded away.
  function header() {
    const m = rep.meta || {}, c = rep.counters || {};
    app.append(el('h1', { text: 'wasp report' }));
    const run = [isNum(m.duration_seconds) ? (m.duration_seconds || '<1') + ' s wall' : null,
                 isNum(m.cpu_seconds) ? m.cpu_seconds + ' s CPU' : null,
                 isNum(m.threads) ? m.threads + ' threads' + (isNum(m.busy_threads) ? ' (' + m.busy_threads + ' busy)' : '') : null];
    app.append(kvTable([
      ['program', m.java_command], ['programs', m.programs], ['JVM', m.jvm],
      ['run', run.filter(Boolean).join(', ')],
      ['wasp used', m.sampler || m.watch ? 'sampler ' + (m.sampler || 'unknown') + ', watchpoints ' + (m.watch || 'none') : null]]));
    // What to know before trusting the fractions (docs/report-json.md).
    for (const w of rep.warnings || []) app.append(el('p', { class: 'warning', text: w }));
    summary();
    const drops = Object.keys(c).filter(k => k.startsWith('dropped.') && c[k] > 0);
    app.append(el('details', { class: 'measured' }, [el('summary', { text: 'How it was measured: sampler, watchpoints, counters' }),
      kvTable([
        ['analyses', m.events],
        ['sampler', [m.sampler, m.sampler_detail].filter(Boolean).join(': ')],
        ['period', m.period_words || m.period],
        ['watchpoints', [m.watch, m.watch_detail].filter(Boolean).join(': ')],
        ['watch budget', isNum(m.watch_budget) ? pct(m.watch_budget) + ' of CPU' : null],
        ['profiles merged', rep.merged_profiles > 1 ? rep.merged_profiles : null],
        ['samples', isNum(c.samples) ? num(c.samples) : null],
        ['armed / trapped', isNum(c.armed) ? num(c.armed) + ' / ' + num(c.trapped) : null]]),
      el('p', { class: 'note', text: drops.length
        ? 'Dropped: ' + drops.map(k => k.slice(8) + ' ' + num(c[k])).join(', ')
        : 'No samples dropped.' }),
      el('details', {}, [el('summary', { text: 'All metadata and counters' }),
        kvTable(Object.keys(m).map(k => [k, m[k]])), kvTable(Object.keys(c).map(k => [k, num(c[k])]))])]));
  }

  // One line per finding: where, what happens, its cost in CPU with its
  // interval, and a mark when it rests on few samples.
  const small = v => v > 0 && v < 0.0005 ? '<0.1%' : pct(v); // as the text report
  // "few watched samples: 2", naming what was counted, as the text report does
  const fewText = f => {
    const unit = f.samples_unit || 'samples';
    return !(f.samples > 0) ? 'no ' + unit : 'few ' + unit + ': ' + (f.samples < 0.5 ? 'under 1' : Math.round(f.samples));
  };
  function summary() {
    const s = rep.summary;
    if (!s || !(s.analyses || []).length) return;
    const box = el('section', { id: 'summary' }, [el('h2', { text: 'Summary' }),
      el('p', { class: 'note', text: '"of CPU": the share of the program\'s ' + num(Math.round(s.samples_due)) +
        ' CPU samples spent in the code involved, with its 95% interval. Each finding is explained in docs/findings.md.' })]);
    const counters = rep.counters || {}, interpreted = (counters['cpu.in_interpreter'] || 0) / (counters['cpu.samples'] || 1);
    if (interpreted >= 0.1) box.append(el('p', { class: 'note', 'data-interpreted': '', text: pct(interpreted) +
      ' of the CPU samples ran in the interpreter (code the JIT had not compiled yet) and count at no line: ' +
      'a longer run shows more of the program at its lines.' }));
    if (s.kernel_share >= 0.05) box.append(el('p', { class: 'note', 'data-kernel': '', text: pct(s.kernel_share) +
      ' of the profiled threads\' CPU ran in the kernel (page faults, as on new heap memory; system calls' +
      ((rep.meta || {}).watch === 'page' ? '; wasp\'s own page-protection faults' : '') + '), where the ' +
      (rep.meta || {}).sampler + ' sampler takes no sample: no share here includes it ' +
      '(--sampler timer counts it at the code that entered the kernel).' }));
    if (s.string_under_watch_share >= 0.02) box.append(el('p', { class: 'note', 'data-strings': '', text: pct(s.string_under_watch_share) +
      ' of the CPU samples were in memset or memcpy while wasp\'s debug registers watched the thread, which runs them ' +
      Math.round((rep.meta || {}).watch_string_slowdown) + 'x slower here: wasp\'s cost, held within its watch budget ' +
      '(--watch-budget); the code that clears or copies memory shows more CPU than it takes without wasp.' }));
    if (s.coarse_line_share >= 0.05) box.append(el('p', { class: 'note', 'data-coarse': '', text: pct(s.coarse_line_share) +
      ' of the CPU samples ran in code compiled before wasp attached, in a JVM started without -XX:+DebugNonSafepoints: ' +
      'HotSpot placed their lines at safepoints only, so a finding there may name a loop\'s header rather than the line in ' +
      'its body, or a method the JIT inlined nearby (code compiled since is exact; for exact lines everywhere, attach with --recompile, or start the ' +
      'JVM with -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints, or under wasp run).' }));
    const ex = s.exceptions; // what filling in exceptions' stack traces cost (docs/findings.md "Exceptions")
    if (ex && ex.cpu_share >= 0.02) box.append(el('p', { class: 'note', 'data-exceptions': '', text: pct(ex.cpu_share) +
      ' of the CPU samples (' + small(ex.cpu_low).replace('%', '') + '\u2013' + small(ex.cpu_high) + ') fill in exceptions\' ' +
      'stack traces (Throwable.fillInStackTrace, run by every exception created)' +
      (ex.place ? ', mostly (' + pct(ex.place_share) + ' of the sampled stacks there) under ' + ex.place : '') +
      ': an exception per call costs that; try testing the condition instead of catching the exception, or throwing one made once.' }));
    const filter = (rep.meta || {})['report.filter']; // --include/--exclude (docs/findings.md)
    if (filter) box.append(el('p', { class: 'note', text: 'Filtered (' + filter + '): only the stacks it keeps are shown, ' +
      'the others summed under "[stacks hidden by --include/--exclude]"; shares are of the whole profile.' }));
    for (const a of s.analyses) {
      box.append(el('h3', { 'data-summary': a.analysis, text: a.title }));
      if (isNum(a.shown_share)) box.append(el('p', { class: 'note', text: 'The filter shows ' + pct(a.shown_share) + ' of its evidence.' }));
      if (a.startup_share > 0) box.append(el('p', { class: 'note', 'data-startup': a.analysis, text: pct(a.startup_share) +
        ' of its ' + (a.startup_of || 'evidence') + (a.startup_of && a.startup_of !== 'evidence' ? ' are' : ' is') +
        ' JVM start-up work (class loading, linking, lambda bootstrap), not among these findings.' }));
      const items = (a.findings || []).map(f => el('li', { 'data-place': (f.file || '') + ':' + (f.line == null ? '' : f.line) }, [
        el('span', { class: 'cpu', text: f.cpu_same_as ? 'CPU counted with ' + f.cpu_same_as + ' (the same line)'
          : isNum(f.cpu_share) ? small(f.cpu_share) + ' of CPU (' + small(f.cpu_low).replace('%', '') + '\u2013' + small(f.cpu_high) + ')' +
            (f.cpu_calls_matter ? ', with the code it calls at least ' + small(f.cpu_with_calls) + ' (' +
              small(f.cpu_with_calls_low).replace('%', '') + '\u2013' + small(f.cpu_with_calls_high) + ')' : '')
          : f.waiting ? 'waiting uses no CPU' : 'CPU not measured' }), ' ',
        el('b', { class: 'mono', text: f.place || '(no frames)' }),
        f.inner ? el('span', { class: 'mono', text: ', in ' + f.inner }) : null, ': ' + f.what,
        f.few_samples ? el('span', { class: 'few', text: fewText(f) }) : null]));
      box.append(items.length ? el('ol', { class: 'findings' }, items)
                              : el('p', { class: 'note', text: a.empty_why ? 'Nothing found: ' + a.empty_why + '.'
                                                                            : 'Nothing found (the detail below says why).' }));
      if (items.length && a.hint) box.append(el('p', { class: 'hint', text: 'Try: ' + a.hint }));
    }
    app.append(box);
  }

  function graphRow(list) {
    const box = el('div', { class: 'graphs' + (list.length === 1 ? ' one' : '') });
    app.append(box);
    for (const g of list) { g.build(box); graphs.push(g); }
  }

  // The contexts under a row: the first MAX_CONTEXTS, each labelled by label(c).
  function contexts(list, label) {
    list = list || [];
    return list.slice(0, MAX_CONTEXTS).map(c => context(label(c), c)).concat(list.length > MAX_CONTEXTS
      ? [el('div', { class: 'note', text: (list.length - MAX_CONTEXTS) + ' more contexts (the flame graph has them).' })]
      : []);
  }
  const className = c => c || '(unknown class)';
  // {area: samples} as "old 604, eden 3", most first.
  function areas(a) {
    return Object.entries(a || {}).sort((x, y) => y[1] - x[1]).map(kv => kv[0] + ' ' + num(kv[1])).join(', ');
  }

  // ---- search: one box for every graph; "#search=TEXT" in the address
  // sets it, so a search can be linked (and tested).

  // Frame kinds every report may draw; a section adds its own (opt.legend).
  const LEGEND = { java: 'java', stub: 'stub', native: 'native', unknown: 'unknown', alloc: 'allocation' };
  function searchBar(kinds) {
    const input = el('input', { type: 'search', placeholder: 'search frames (method, Class.method, file)' });
    const legend = el('span', { class: 'legend' }, Object.keys(kinds).map(k =>
      el('span', { class: 'k-' + k, text: kinds[k] })));
    const apply = function () {
      for (const g of graphs) { g.query = input.value; g.draw(); }
    };
    input.addEventListener('input', function () {
      history.replaceState(null, '', input.value ? '#search=' + encodeURIComponent(input.value) : '#');
      apply();
    });
    app.append(el('div', { class: 'bar' }, [input, ' ', legend]));
    return function () {
      const m = /(?:^#|&)search=([^&]*)/.exec(location.hash);
      if (m) { input.value = decodeURIComponent(m[1]); apply(); }
    };
  }

  // ---- the sections: name -> { draw(data, name), legend }

  const sections = new Map();
  function section(names, draw, opt) {
    for (const name of [].concat(names)) sections.set(name, { draw: draw, legend: (opt || {}).legend || {} });
  }

  // The members of the report that have a section, in the JSON's order: the
  // pair analyses' in "analyses", then the top-level ones.
  function parts() {
    const list = [], analyses = rep.analyses || {};
    for (const name of Object.keys(analyses))
      if (sections.has(name)) list.push([name, analyses[name]]);
    for (const name of Object.keys(rep))
      if (name !== 'analyses' && sections.has(name) && rep[name]) list.push([name, rep[name]]);
    return list;
  }

  function draw() {
    app.textContent = '';
    header();
    const list = parts(), kinds = Object.assign({}, LEGEND);
    for (const [name] of list) Object.assign(kinds, sections.get(name).legend);
    app.append(el('h2', { class: 'detail', text: 'Detail' }));
    const applyHash = searchBar(kinds);
    for (const [name, data] of list) {
      app.append(el('h2', { 'data-analysis': name, text: name }));
      sections.get(name).draw(data, name);
    }
    if (!list.length) app.append(el('p', { class: 'note', text: 'The profile has no analysis to show.' }));
    applyHash();
    window.addEventListener('hashchange', applyHash);
    document.body.setAttribute('data-ready', '1'); // the page is built (tests wait for this)
  }

  const kit = Object.assign({ app: app, FlameGraph: FlameGraph, rankTable: rankTable, N: N, graphRow: graphRow,
                              contexts: contexts, areas: areas, className: className }, waspUi);
  return { section: section, draw: draw, kit: kit };
})();
