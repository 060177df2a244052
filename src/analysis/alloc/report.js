// The alloc analysis's section of the HTML report (cli/html_part.h): the
// classes and the allocation sites ranked by estimated bytes (or by sampled
// creations: "ranked_by", wasp report --alloc-rank), and a flame graph of the
// sites, then the class, weighed the same way. Member "alloc"
// (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow, className
  } = waspReport.kit;

  // "1.2 GiB [1.1 GiB–1.3 GiB]": the estimate and its 95% interval.
  function estimate(x) {
    return x.bytes == null ? '\u2013' : bytes(x.bytes) + ' [' + bytes(x.bytes_low) + '\u2013' + bytes(x.bytes_high) + ']';
  }
  function rate(x) { return x.bytes_per_cpu_second == null ? '\u2013' : bytes(x.bytes_per_cpu_second) + '/CPU s'; }

  function draw(a) {
    const lost = Object.entries(a.not_counted || {}).filter(kv => kv[1] > 0);
    const how = a.sampled_by === 'boundaries'
      ? 'objects holding watched TLAB page boundaries, each weighed by its size'
      : 'sampled stores of a class word';
    const byBytes = a.ranked_by === 'bytes';
    const total = a.bytes == null
      ? ' Bytes not recorded (sampled stores, or a profile of an older wasp).'
      : ' Estimated bytes allocated: ' + estimate(a) + ', ' + rate(a) +
        ' (over the profiled threads\' CPU seconds; 95% intervals from ' + num(a.catches) + ' catches).';
    app.append(el('p', { text: num(a.samples) + ' sampled creations (' + how + ').' + total + ' ' +
      (lost.length ? 'Not counted: ' + lost.map(kv => kv[0].replace(/_/g, ' ') + ' ' + num(kv[1])).join(', ') + '.'
                   : 'None left uncounted.') }));
    const sites = a.sites || [];
    const g = byBytes
      ? new FlameGraph('Allocation sites, then the class (by estimated bytes)', 'bytes', null)
      : new FlameGraph('Allocation sites, then the class (by sampled creations)', 'creations', null);
    sites.forEach(function (s, i) {
      g.add((s.frames || []).concat([{ kind: 'alloc', method: 'new ' + className(s.class), line: -1 }]),
            byBytes ? s.bytes : s.samples, 0, s.instruction, [i, 'class:' + s.class]);
    });
    const share = x => N(pct(byBytes ? x.bytes_share : x.share));
    const byteCols = a.bytes == null ? [] : ['=bytes [95%]', '=rate'];
    const byteCells = x => a.bytes == null ? [] : [N(estimate(x)), N(rate(x))];
    const shareHead = byBytes ? '=share of bytes' : '=share';
    app.append(el('h3', { text: 'Classes' + (byBytes ? ' by estimated bytes' : ' by sampled creations') }));
    rankTable([shareHead, 'class'].concat(byteCols, ['=creations', '=sites']), a.classes || [],
      c => [share(c), className(c.class)].concat(byteCells(c), [N(num(c.samples)), N(num(c.sites))]), [g],
      { name: 'alloc.classes', tag: c => 'class:' + c.class });
    app.append(el('h3', { text: 'Allocation sites' }));
    rankTable([shareHead, 'class'].concat(byteCols, ['=creations', 'allocated at', 'instruction']), sites,
      s => [share(s), className(s.class)].concat(byteCells(s), [N(num(s.samples)), leafName(s), s.instruction || '']),
      [g], { name: 'alloc.sites', details: s => [context('allocated at', s)] });
    graphRow([g]);
  }

  waspReport.section('alloc', draw);
})();
