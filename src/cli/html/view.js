// The HTML section of every analysis described by a view (src/cli/render/view.h):
// one drawing for all of them, from the views' descriptions (view_html.c
// writes a call of waspViews, NAME -> {rows, what, of, columns, head}, after this
// file). A section: the totals in one line, a flame graph per context
// column weighted by the value column, and the rows ranked in a table whose
// columns are the view's; a row opens on its contexts.
'use strict';

function waspViews(views) {
  const {
    app, el, isNum, num, pct, bytes, leafName, context, contexts, className, areas, FlameGraph, rankTable, N,
    graphRow
  } = waspReport.kit;
  // Counts as the text report writes them (units.c): whole from 10 up, so
  // a weighted count reads "1,058 samples", not "1,057.75".
  const count = v => isNum(v) && (v >= 10 || Number.isInteger(v)) ? num(Math.round(v))
    : isNum(v) ? v.toFixed(1) : num(v);
  const seconds = v => !isNum(v) ? num(v) : v < 1 ? Math.round(v * 1000) + ' ms' : v.toPrecision(3) + ' s';
  const numbers = { share: pct, bytes: bytes, count: count, seconds: seconds };

  // A cell as the table shows it: numbers right-aligned, a true flag as its
  // title, a context as its leaf frame, a site as its class.
  function cell(c, v, r) {
    if (numbers[c.kind]) return N(numbers[c.kind](v));
    if (c.kind === 'flag') return v ? c.title : '';
    if (c.kind === 'context' || c.kind === 'allocation') return leafName(v);
    if (c.kind === 'site') return className(r.class);
    if (c.kind === 'hook') return isMap(v) ? areas(v) : '';
    return v == null ? '' : String(v);
  }
  // A hook's member that is numbers by name (fields' "areas"): "old 604, eden 3".
  const isMap = v => v !== null && typeof v === 'object' && !Array.isArray(v) &&
    Object.values(v).every(isNum);
  function heading(c) { return (numbers[c.kind] ? '=' : '') + c.title + (c.estimate ? ' (est.)' : ''); }
  // A table shows every column but nested lists, and hooks only when they are numbers by name.
  const inTable = rows => c => c.kind !== 'list' && (c.kind !== 'hook' || rows.some(r => isMap(r[c.member])));
  const isContext = c => c.kind === 'context' || c.kind === 'allocation';
  const ctxOf = (r, c) => c.inline ? r : r[c.member];
  // A nested row's label: its numbers ("θ 41.0%, comparisons 12").
  const label = (cols, r) => cols.filter(c => numbers[c.kind]).map(c => c.title + ' ' + numbers[c.kind](r[c.member])).join(', ');

  // table: the ranked table's name ('deadstore.pairs'; a sub's 'locks.blocked').
  function draw(view, table) {
    return function (data, name) {
      const said = function (c) { const x = cell(c, data[c.member], data); return x && x.n !== undefined ? x.n : x; };
      if (view.head.length)
        app.append(el('p', { text: view.head.map(c => c.title + ' ' + said(c)).join(', ') + '.' }));
      const rows = data[view.rows] || [];
      // A flame graph per context column, weighted by its view's value; a
      // nested list's contexts weighted by the list's value.
      const graphs = [], adders = [];
      // The column naming a row as the leaf frame of its paths (fields' member).
      // Else a site's class ("new C"), as the text and the stacks end its paths.
      const leaf = view.columns.find(c => c.frame), site = view.columns.find(c => c.kind === 'site');
      const leafOf = r => leaf ? [{ kind: leaf.frame, method: (leaf.prefix || '') + r[leaf.member], line: -1 }]
        : site ? [{ kind: 'alloc', method: 'new ' + className(r.class), line: -1 }] : [];
      const graphOf = function (cols, ctx, each) {
        // By the member the head says the rows are ranked by (alloc's "bytes"), else the value.
        const value = cols.find(c => c.member === data.ranked_by && numbers[c.kind]) || cols.find(c => c.value);
        const evidence = cols.find(c => c.evidence);
        const g = new FlameGraph('Contexts ' + ctx.title + ' (' + name + ', by ' + value.title + ')',
                                 value.kind === 'bytes' ? 'bytes' : value.title, evidence ? evidence.title : null);
        graphs.push(g);
        adders.push(function (r, i) {
          for (const x of each(r)) {
            const c = ctxOf(x, ctx) || {};
            g.add((c.frames || []).concat(leafOf(r)), x[value.member], evidence ? x[evidence.member] : 0,
                  c.instruction, i);
          }
        });
      };
      const lists = view.columns.filter(c => c.kind === 'list'), hooks = view.columns.filter(c => c.kind === 'hook');
      for (const c of view.columns.filter(isContext)) graphOf(view.columns, c, r => [r]);
      for (const l of lists)
        for (const c of l.list.filter(isContext)) graphOf(l.list, c, r => r[l.member] || []);
      rows.forEach((r, i) => adders.forEach(add => add(r, i)));
      const cols = view.columns.filter(inTable(rows));
      rankTable(cols.map(heading), rows, r => cols.map(c => cell(c, r[c.member], r)), graphs, {
        name: table || name + '.' + view.whats, // 'deadstore.pairs', 'fields.members'
        // a hook's member with contexts of its own (objects' "creations") opens too
        details: r => view.columns.filter(isContext).map(c => context(c.title, r[c.member])).concat(
          ...hooks.map(h => contexts((r[h.member] || {}).contexts, x => h.title + ': ' + pct(x.share))),
          ...lists.map(l => contexts(r[l.member], x => l.title + ': ' + label(l.list, x))))
      });
      // Further tables (fields' classes): their rows ranked, no graph of their own.
      for (const t of view.tables || []) {
        const trows = data[t.rows] || [], tcols = t.columns.filter(inTable(trows));
        app.append(el('h3', { text: t.title }));
        if (!trows.length) { app.append(el('p', { class: 'note', text: 'None.' })); continue; }
        rankTable(tcols.map(heading), trows, r => tcols.map(c => cell(c, r[c.member], r)), [],
          { name: name + '.' + t.rows });
      }
      graphRow(graphs);
      // A sub view (locks' blocked time): drawn alike under its heading.
      const sub = view.sub;
      if (sub && data[sub.member]) {
        app.append(el('h3', { text: sub.title }));
        draw(sub, name + '.' + sub.member)(data[sub.member], name);
      }
    };
  }

  // A leaf frame's kind joins the search bar's legend under its column's title.
  for (const name of Object.keys(views)) {
    const legend = {};
    for (const c of views[name].columns) if (c.frame) legend[c.frame] = c.title;
    waspReport.section(name, draw(views[name]), { legend: legend });
  }
}
