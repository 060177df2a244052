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

  function section(name) { app.append(el('h2', { 'data-analysis': name, text: name })); }

  // The contexts under a row: the first MAX_CONTEXTS, each labelled by label(c).
  function contexts(list, label) {
    list = list || [];
    return list.slice(0, MAX_CONTEXTS).map(c => context(label(c), c)).concat(list.length > MAX_CONTEXTS
      ? [el('div', { class: 'note', text: (list.length - MAX_CONTEXTS) + ' more contexts (the flame graph has them).' })]
      : []);
  }
  // {area: samples} as "old 604, eden 3", most first.
  function areas(a) {
    return Object.entries(a || {}).sort((x, y) => y[1] - x[1]).map(kv => kv[0] + ' ' + num(kv[1])).join(', ');
  }

  function pairAnalysis(name, a) {
    section(name);
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
    rankTable(['=F', '=bytes', '=count', 'watched at', 'trapped at', 'watched instruction'],
      pairs, p => [N(pct(p.fraction) + (p.approximate ? ' \u2248' : '')), N(bytes(p.bytes)), N(num(p.count)),
                   leafName(p.watch), leafName(p.trap), (p.watch || {}).instruction || ''],
      [watched, trapped], { name: name + '.pairs', details: p => [context('watched', p.watch),
                                                                   context('trapped at', p.trap)] });
    graphRow([watched, trapped]);
  }

  function objects(o) {
    section('objects');
    app.append(el('p', { text: 'Metric: ' + (o.metric || 'unknown') + '. ' + num(o.samples) + ' address samples, ' +
      num(o.unattributed) + ' unattributed, ' + num(o.stale) + ' stale; remote share ' + pct(o.remote_share) + '.' }));
    const sites = o.sites || [];
    const g = new FlameGraph('Allocation paths, then access paths (by samples)', 'samples', null);
    sites.forEach(function (s, i) {
      const alloc = ((s.allocation || {}).frames || []).concat([{ kind: 'alloc', method: 'new ' + s.class, line: -1 }]);
      for (const a of s.accesses || []) g.add(alloc.concat(a.frames || []), a.samples, 0, a.instruction, i);
    });
    rankTable(['=share', 'class', '=allocations', '=bytes', '=samples', '=remote', 'allocated at'],
      sites, s => [N(pct(s.share)), s.class, N(num(s.allocations)), N(bytes(s.bytes)), N(num(s.samples)),
                   N(pct(s.remote_share)), leafName(s.allocation)], [g],
      { name: 'objects.sites', details: s => [context('allocated at', s.allocation)].concat(
          contexts(s.accesses, a => 'accessed: ' + pct(a.share) + ', ' + num(a.samples) + ' samples')) });
    graphRow([g]);
  }

  function replicas(r) {
    section('replicas');
    const sites = r.sites || [];
    const g = new FlameGraph('Replica sites: allocation paths, then comparison paths (by comparisons)',
                             'comparisons', null);
    sites.forEach(function (s, i) {
      const alloc = ((s.allocation || {}).frames || []).concat(
        [{ kind: 'alloc', method: 'new ' + s.class + ' \u03b8=' + pct(s.theta), line: -1 }]);
      for (const a of s.accesses || []) g.add(alloc.concat(a.frames || []), a.comparisons, 0, a.instruction, i);
    });
    // Ranked by replicated bytes (theta x bytes; none for a class site), with the
    // evidence: the 95% interval of theta and the comparisons (docs/report-json.md).
    rankTable(['=replicated', '=\u03b8', '=\u03b8 95%', '=comparisons', 'class', '=allocations', '=bytes',
               '=\u03b1', '=\u03c9', '=\u03b3', 'allocated at'],
      sites, s => [N(bytes(s.replicated_bytes)), N(pct(s.theta)), N(pct(s.theta_low) + '\u2013' + pct(s.theta_high)),
                   N(num(s.comparisons)), s.class, N(num(s.allocations)), N(bytes(s.bytes)),
                   N(pct(s.alpha)), N(pct(s.omega)), N(pct(s.gamma)), leafName(s.allocation)], [g],
      { name: 'replicas.sites', details: s => [context('allocated at', s.allocation)].concat(
          contexts(s.accesses, a => 'compared: \u03b8 ' + pct(a.theta) + ' of ' + num(a.comparisons))) });
    graphRow([g]);
  }

  // A member's name: "Class.field", "Class elements", "Class (mark word)",
  // or "Class +12" when no field starts at its offset.
  function member(m) {
    if (m.field === '[]') return m.class + ' elements';
    if (!m.field) return m.class + ' +' + (isNum(m.offset) ? m.offset : '?');
    return m.class + (m.field.startsWith('(') ? ' ' : '.') + m.field;
  }
  const className = c => c || '(unknown class)';

  function fields(f) {
    section('fields');
    const heap = f.heap_samples;
    app.append(el('p', { text: num(heap) + ' heap samples, ' + num(f.named) + ' named (' +
      pct(heap > 0 ? f.named / heap : null) + '). Samples by area: ' + (areas(f.areas) || 'none') + '.' }));
    const members = f.fields || [];
    const g = new FlameGraph('Access contexts, then the member (by samples)', 'samples', 'stores');
    members.forEach(function (m, i) {
      const leaf = [{ kind: 'field', method: member(m), line: -1 }];
      for (const c of m.contexts || [])
        g.add((c.frames || []).concat(leaf), c.loads + c.stores, c.stores, c.instruction, [i, 'class:' + m.class]);
    });
    app.append(el('h3', { text: 'Members' }));
    rankTable(['=share', 'member', '=loads', '=stores', 'areas', 'hottest at'],
      members, m => [N(pct(m.share)), member(m), N(num(m.loads)), N(num(m.stores)), areas(m.areas),
                     leafName((m.contexts || [])[0])], [g],
      { name: 'fields.members', details: m => contexts(m.contexts, c =>
          'loads ' + num(c.loads) + ', stores ' + num(c.stores) + (c.area ? ', ' + c.area : '')) });
    app.append(el('h3', { text: 'Classes' }));
    rankTable(['=share', 'class', '=loads', '=stores', 'areas'], f.classes || [],
      c => [N(pct(c.share)), className(c.class), N(num(c.loads)), N(num(c.stores)), areas(c.areas)], [g],
      { name: 'fields.classes', tag: c => 'class:' + c.class });
    graphRow([g]);
  }

  function alloc(a) {
    section('alloc');
    const lost = Object.entries(a.not_counted || {}).filter(kv => kv[1] > 0);
    app.append(el('p', { text: num(a.samples) + ' sampled creations (samples at a store of a class word). ' +
      (lost.length ? 'Not counted: ' + lost.map(kv => kv[0].replace(/_/g, ' ') + ' ' + num(kv[1])).join(', ') + '.'
                   : 'None left uncounted.') }));
    const sites = a.sites || [];
    const g = new FlameGraph('Allocation sites, then the class (by sampled creations)', 'creations', null);
    sites.forEach(function (s, i) {
      g.add((s.frames || []).concat([{ kind: 'alloc', method: 'new ' + className(s.class), line: -1 }]),
            s.samples, 0, s.instruction, [i, 'class:' + s.class]);
    });
    app.append(el('h3', { text: 'Classes' }));
    rankTable(['=share', 'class', '=creations', '=sites'], a.classes || [],
      c => [N(pct(c.share)), className(c.class), N(num(c.samples)), N(num(c.sites))], [g],
      { name: 'alloc.classes', tag: c => 'class:' + c.class });
    app.append(el('h3', { text: 'Allocation sites' }));
    rankTable(['=share', 'class', '=creations', 'allocated at', 'instruction'], sites,
      s => [N(pct(s.share)), className(s.class), N(num(s.samples)), leafName(s), s.instruction || ''], [g],
      { name: 'alloc.sites', details: s => [context('allocated at', s)] });
    graphRow([g]);
  }

  function locks(l) {
    section('locks');
    app.append(el('p', { text: num(l.samples) + ' lock samples: ' + num(l.acquire) + ' acquiring, ' + num(l.slow) +
      ' in slow paths (' + pct(l.samples > 0 ? l.slow / l.samples : null) + '); ' + num(l.release) +
      ' releasing (not in the samples).' }));
    const classes = l.classes || [];
    const g = new FlameGraph('Acquiring contexts, then the locked class (by lock samples)', 'samples', 'slow');
    classes.forEach(function (c, i) {
      const leaf = [{ kind: 'lock', method: 'lock ' + className(c.class), line: -1 }];
      for (const x of c.contexts || []) g.add((x.frames || []).concat(leaf), x.samples, x.slow, x.instruction, i);
    });
    const counts = x => 'samples ' + num(x.samples) + ': acquire ' + num(x.acquire) + ', slow ' + num(x.slow) +
                        '; release ' + num(x.release);
    rankTable(['=share', 'class', '=samples', '=acquire', '=slow', '=slow share', '=release', 'hottest at'], classes,
      c => [N(pct(c.share)), className(c.class), N(num(c.samples)), N(num(c.acquire)), N(num(c.slow)),
            N(pct(c.slow_share)), N(num(c.release)), leafName((c.contexts || [])[0])], [g],
      { name: 'locks.classes', details: c => contexts(c.contexts, counts) });
    const slow = l.slow_functions || [];
    app.append(el('h3', { text: 'Slow-path functions' }));
    if (slow.length)
      rankTable(['function', '=samples', '=of slow'], slow,
        s => [s.function, N(num(s.samples)), N(pct(l.slow > 0 ? s.samples / l.slow : null))], [],
        { name: 'locks.slow_functions' });
    else app.append(el('p', { class: 'note', text: 'No samples in the monitor-enter slow paths.' }));
    graphRow([g]);
  }

  // ---- search: one box for every graph; "#search=TEXT" in the address
  // sets it, so a search can be linked (and tested).

  const LEGEND = { alloc: 'allocation', field: 'member', lock: 'locked class' };
  function searchBar() {
    const input = el('input', { type: 'search', placeholder: 'search frames (method, Class.method, file)' });
    const legend = el('span', { class: 'legend' }, ['java', 'stub', 'native', 'unknown', 'alloc'].concat(
      rep.fields ? ['field'] : [], rep.locks ? ['lock'] : []).map(k =>
      el('span', { class: 'k-' + k, text: LEGEND[k] || k })));
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
  if (rep.fields) fields(rep.fields);
  if (rep.alloc) alloc(rep.alloc);
  if (rep.locks) locks(rep.locks);
  if (!Object.keys(analyses).length && !['objects', 'replicas', 'fields', 'alloc', 'locks'].some(k => rep[k]))
    app.append(el('p', { class: 'note', text: 'The profile has no analysis to show.' }));
  applyHash();
  window.addEventListener('hashchange', applyHash);
  document.body.setAttribute('data-ready', '1'); // the page is built (tests wait for this)
})();
