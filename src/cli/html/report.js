// wasp's HTML report: builds the page from the JSON report embedded in it
// (#wasp-data, docs/report-json.md). No libraries and no network: the page
// must open from disk anywhere. Frames in the JSON are root first, leaf last.
'use strict';

(function () {
  const rep = JSON.parse(document.getElementById('wasp-data').textContent);
  const app = document.getElementById('app');
  const graphs = []; // every flame graph, for the search
  const ROW = 17; // px per flame-graph row (.fr height in report.css)
  const MAX_ROWS = 500; // table rows; the flame graphs take every entry

  const { el, isNum, num, pct, bytes, frameName, leafName, kvTable } = waspUi; // common.js

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
  // it in a table highlights (the entry's index).
  FlameGraph.prototype.add = function (frames, weight, weight2, insn, tag) {
    if (!(weight > 0)) return;
    let n = this.root;
    const visit = function (m) { m.w += weight; m.w2 += weight2 || 0; m.tags.add(tag); };
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
  FlameGraph.prototype.select = function (tag) { this.selected = tag; this.draw(); };

  // ---- a ranked table whose rows select an entry in the graphs

  function rankTable(heads, entries, cells, graphsOf) {
    const body = el('tbody');
    const rows = [];
    entries.slice(0, MAX_ROWS).forEach(function (e, i) {
      const tr = el('tr', { onclick: function () { select(i); } },
        [el('td', { class: 'num', text: '#' + (i + 1) })].concat(cells(e).map(c =>
          el('td', { class: typeof c === 'object' ? 'num' : '', text: typeof c === 'object' ? c.n : c }))));
      rows.push(tr);
      body.append(tr);
    });
    function select(i) {
      rows.forEach((r, j) => r.classList.toggle('sel', i === j));
      for (const g of graphsOf) g.select(i);
    }
    const table = el('table', { class: 'rank' }, [
      el('thead', {}, [el('tr', {}, [el('th', { text: '#' })].concat(heads.map(h =>
        el('th', { class: h.startsWith('=') ? 'num' : '', text: h.replace(/^=/, '') }))))]),
      body]);
    const more = entries.length > MAX_ROWS
      ? el('p', { class: 'note', text: (entries.length - MAX_ROWS) + ' more entries are in the flame graphs only.' })
      : null;
    return { nodes: [table, more], select: select };
  }
  const N = v => ({ n: v }); // a right-aligned cell

  // ---- the sections

  function header() {
    const m = rep.meta || {}, c = rep.counters || {};
    app.append(el('h1', { text: 'wasp report' }));
    app.append(kvTable([
      ['program', m.java_command], ['programs', m.programs], ['JVM', m.jvm],
      ['analyses', m.events],
      ['sampler', [m.sampler, m.sampler_detail].filter(Boolean).join(': ')],
      ['period', m.period],
      ['watchpoints', [m.watch, m.watch_detail].filter(Boolean).join(': ')],
      ['watch budget', isNum(m.watch_budget) ? pct(m.watch_budget) + ' of CPU' : null],
      ['profiles merged', rep.merged_profiles > 1 ? rep.merged_profiles : null],
      ['samples', isNum(c.samples) ? num(c.samples) : null],
      ['armed / trapped', isNum(c.armed) ? num(c.armed) + ' / ' + num(c.trapped) : null]]));
    const drops = Object.keys(c).filter(k => k.startsWith('dropped.') && c[k] > 0);
    app.append(el('p', { class: 'note', text: drops.length
      ? 'Dropped: ' + drops.map(k => k.slice(8) + ' ' + num(c[k])).join(', ')
      : 'No samples dropped.' }));
    app.append(el('details', {}, [el('summary', { text: 'All metadata and counters' }),
      kvTable(Object.keys(m).map(k => [k, m[k]])), kvTable(Object.keys(c).map(k => [k, num(c[k])]))]));
  }

  function graphRow(list) {
    const box = el('div', { class: 'graphs' + (list.length === 1 ? ' one' : '') });
    app.append(box);
    for (const g of list) { g.build(box); graphs.push(g); }
  }

  function pairAnalysis(name, a) {
    app.append(el('h2', { text: name }));
    app.append(el('p', { text: 'F_prog ' + pct(a.fraction) + ': ' + bytes(a.wasted_bytes) + ' exact + ' +
      bytes(a.wasted_bytes_approx) + ' approximate of ' + bytes(a.bytes) + ' stored in ' +
      num(a.pairs_classified) + ' classified pairs.' }));
    const pairs = a.pairs || [];
    const watched = new FlameGraph('Watched contexts (' + name + ', by bytes)', 'bytes', 'count');
    const trapped = new FlameGraph('Trapped contexts (' + name + ', by bytes)', 'bytes', 'count');
    pairs.forEach(function (p, i) {
      watched.add((p.watch || {}).frames || [], p.bytes, p.count, (p.watch || {}).instruction, i);
      trapped.add((p.trap || {}).frames || [], p.bytes, p.count, (p.trap || {}).instruction, i);
    });
    const t = rankTable(['=F', '=bytes', '=count', 'watched at', 'trapped at', 'watched instruction'],
      pairs, p => [N(pct(p.fraction) + (p.approximate ? ' \u2248' : '')), N(bytes(p.bytes)), N(num(p.count)),
                   leafName(p.watch), leafName(p.trap), (p.watch || {}).instruction || ''],
      [watched, trapped]);
    app.append(...t.nodes.filter(Boolean));
    graphRow([watched, trapped]);
    if (pairs.length) t.select(0);
  }

  function objects(o) {
    app.append(el('h2', { text: 'objects' }));
    app.append(el('p', { text: 'Metric: ' + (o.metric || 'unknown') + '. ' + num(o.samples) + ' address samples, ' +
      num(o.unattributed) + ' unattributed, ' + num(o.stale) + ' stale; remote share ' + pct(o.remote_share) + '.' }));
    const sites = o.sites || [];
    const g = new FlameGraph('Allocation paths, then access paths (by samples)', 'samples', null);
    sites.forEach(function (s, i) {
      const alloc = ((s.allocation || {}).frames || []).concat([{ kind: 'alloc', method: 'new ' + s.class, line: -1 }]);
      for (const a of s.accesses || []) g.add(alloc.concat(a.frames || []), a.samples, 0, a.instruction, i);
    });
    const t = rankTable(['=share', 'class', '=allocations', '=bytes', '=samples', '=remote', 'allocated at'],
      sites, s => [N(pct(s.share)), s.class, N(num(s.allocations)), N(bytes(s.bytes)), N(num(s.samples)),
                   N(pct(s.remote_share)), leafName(s.allocation)], [g]);
    app.append(...t.nodes.filter(Boolean));
    graphRow([g]);
    if (sites.length) t.select(0);
  }

  function replicas(r) {
    app.append(el('h2', { text: 'replicas' }));
    const sites = r.sites || [];
    const g = new FlameGraph('Replica sites: allocation paths, then comparison paths (by comparisons)',
                             'comparisons', null);
    sites.forEach(function (s, i) {
      const alloc = ((s.allocation || {}).frames || []).concat(
        [{ kind: 'alloc', method: 'new ' + s.class + ' \u03b8=' + pct(s.theta), line: -1 }]);
      for (const a of s.accesses || []) g.add(alloc.concat(a.frames || []), a.comparisons, 0, a.instruction, i);
    });
    const t = rankTable(['=\u03b8', '=comparisons', 'class', '=allocations', '=bytes', '=\u03b1', '=\u03c9', '=\u03b3',
                         'allocated at'],
      sites, s => [N(pct(s.theta)), N(num(s.comparisons)), s.class, N(num(s.allocations)), N(bytes(s.bytes)),
                   N(pct(s.alpha)), N(pct(s.omega)), N(pct(s.gamma)), leafName(s.allocation)], [g]);
    app.append(...t.nodes.filter(Boolean));
    graphRow([g]);
    if (sites.length) t.select(0);
  }

  // ---- search: one box for every graph; "#search=TEXT" in the address
  // sets it, so a search can be linked (and tested).

  function searchBar() {
    const input = el('input', { type: 'search', placeholder: 'search frames (method, Class.method, file)' });
    const legend = el('span', { class: 'legend' }, ['java', 'stub', 'native', 'unknown', 'alloc'].map(k =>
      el('span', { class: 'k-' + k, text: k === 'alloc' ? 'allocation' : k })));
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

  app.textContent = '';
  header();
  const applyHash = searchBar();
  const analyses = rep.analyses || {};
  for (const name of Object.keys(analyses)) pairAnalysis(name, analyses[name]);
  if (rep.objects) objects(rep.objects);
  if (rep.replicas) replicas(rep.replicas);
  if (!Object.keys(analyses).length && !rep.objects && !rep.replicas)
    app.append(el('p', { class: 'note', text: 'The profile has no analysis to show.' }));
  applyHash();
  window.addEventListener('hashchange', applyHash);
  document.body.setAttribute('data-ready', '1'); // the page is built (tests wait for this)
})();
