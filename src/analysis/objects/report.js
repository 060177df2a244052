// The objects analysis's section of the HTML report (cli/html_part.h): the
// allocation sites ranked by access samples, and a flame graph of allocation
// paths, then access paths. Member "objects" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow, contexts
  } = waspReport.kit;

  // Where a class site's objects are made (its "creations": sampled creations
  // with -e alloc, else the allocation samples of objects too small to track),
  // null for an allocation site or when none was recorded.
  function made(s) {
    const c = s.creations;
    return c && (c.contexts || []).length ? c : null;
  }

  function allocatedAt(s) {
    const m = made(s);
    return m ? leafName(m.contexts[0]) + ' (' + pct(m.contexts[0].share) + ')' : leafName(s.allocation);
  }

  function madeContexts(s) {
    const m = made(s);
    if (!m) return [context('allocated at', s.allocation)];
    const what = m.from === 'creations' ? 'creations' : 'allocations';
    return contexts(m.contexts, c => (what === 'creations' ? 'created' : 'allocated') + ' here: ' +
      pct(c.share) + ' of the class\'s ' + num(m.samples) + ' sampled ' + what);
  }

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
                   N(pct(s.remote_share)), allocatedAt(s)], [g],
      { name: 'objects.sites', details: s => madeContexts(s).concat(
          contexts(s.accesses, a => 'accessed: ' + pct(a.share) + ', ' + num(a.samples) + ' samples')) });
    graphRow([g]);
  }

  waspReport.section('objects', draw);
})();
