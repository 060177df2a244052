// The fields analysis's section of the HTML report (cli/html_part.h): the
// members and the classes ranked by sampled accesses, and a flame graph of
// access contexts, then the member. Member "fields" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, isNum, num, pct, leafName, FlameGraph, rankTable, N, graphRow, contexts, areas,
    className
  } = waspReport.kit;

  // A member's name: "Class.field", "Class elements", "Class (mark word)",
  // or "Class +12" when no field starts at its offset.
  function member(m) {
    if (m.field === '[]') return m.class + ' elements';
    if (!m.field) return m.class + ' +' + (isNum(m.offset) ? m.offset : '?');
    return m.class + (m.field.startsWith('(') ? ' ' : '.') + m.field;
  }
  function draw(f) {
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

  waspReport.section('fields', draw, { legend: { field: 'member' } });
})();
