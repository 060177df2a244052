// The replicas analysis's section of the HTML report (cli/html_part.h): the
// replica sites ranked by replicated bytes with their evidence, and a flame
// graph of allocation paths, then comparison paths. Member "replicas".
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const { num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow, contexts } = waspReport.kit;

  function draw(r) {
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

  waspReport.section('replicas', draw);
})();
