// The HTML section of every analysis described by a view (src/cli/view.h):
// one drawing for all of them, from the views' descriptions (view_html.c
// writes a call of waspViews, NAME -> {rows, what, of, columns, head}, after this
// file). A section: the totals in one line, a flame graph per context
// column weighted by the value column, and the rows ranked in a table whose
// columns are the view's; a row opens on its contexts.
'use strict';

function waspViews(views) {
  const { app, el, isNum, num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow } = waspReport.kit;
  // Counts as the text report writes them (units.c): whole from 10 up, so
  // a weighted count reads "1,058 samples", not "1,057.75".
  const count = v => isNum(v) && (v >= 10 || Number.isInteger(v)) ? num(Math.round(v))
    : isNum(v) ? v.toFixed(1) : num(v);
  const numbers = { share: pct, bytes: bytes, count: count };

  // A cell as the table shows it: numbers right-aligned, a true flag as its
  // title, a context as its leaf frame.
  function cell(c, v) {
    if (numbers[c.kind]) return N(numbers[c.kind](v));
    if (c.kind === 'flag') return v ? c.title : '';
    if (c.kind === 'context') return leafName(v);
    return v == null ? '' : String(v);
  }
  function heading(c) { return (numbers[c.kind] ? '=' : '') + c.title + (c.estimate ? ' (est.)' : ''); }

  function draw(view) {
    return function (data, name) {
      const said = function (c) { const x = cell(c, data[c.member]); return x && x.n !== undefined ? x.n : x; };
      app.append(el('p', { text: view.head.map(c => c.title + ' ' + said(c)).join(', ') + '.' }));
      const rows = data[view.rows] || [];
      const value = view.columns.find(c => c.value), evidence = view.columns.find(c => c.evidence);
      const unit = value.kind === 'bytes' ? 'bytes' : value.title;
      const ctxs = view.columns.filter(c => c.kind === 'context');
      const graphs = ctxs.map(c => new FlameGraph('Contexts ' + c.title + ' (' + name + ', by ' + value.title + ')',
                                                   unit, evidence ? evidence.title : null));
      rows.forEach(function (r, i) {
        ctxs.forEach(function (c, k) {
          const x = r[c.member] || {};
          graphs[k].add(x.frames || [], r[value.member], evidence ? r[evidence.member] : 0, x.instruction, i);
        });
      });
      rankTable(view.columns.map(heading), rows, r => view.columns.map(c => cell(c, r[c.member])), graphs,
        { name: name + '.' + view.rows, details: r => ctxs.map(c => context(c.title, r[c.member])) });
      graphRow(graphs);
    };
  }

  for (const name of Object.keys(views)) waspReport.section(name, draw(views[name]));
}
