// The objects analysis's section of the HTML report (cli/html_part.h): the
// allocation sites ranked by access samples, and a flame graph of allocation
// paths, then access paths. Member "objects" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow, contexts
  } = waspReport.kit;

  function draw(o) {
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

  waspReport.section('objects', draw);
})();
