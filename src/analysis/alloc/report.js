// The alloc analysis's section of the HTML report (cli/html_part.h): the
// classes and the allocation sites ranked by sampled creations, and a flame
// graph of the sites, then the class. Member "alloc" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, leafName, context, FlameGraph, rankTable, N, graphRow, className
  } = waspReport.kit;

  function draw(a) {
    const lost = Object.entries(a.not_counted || {}).filter(kv => kv[1] > 0);
    const how = a.sampled_by === 'boundaries'
      ? 'objects holding watched TLAB page boundaries, each weighed by its size'
      : 'sampled stores of a class word';
    app.append(el('p', { text: num(a.samples) + ' sampled creations (' + how + '). ' +
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

  waspReport.section('alloc', draw);
})();
