// The pair analyses' sections of the HTML report (cli/html_part.h): F_prog,
// the <watch, trap> pairs ranked, and flame graphs of the watched and the
// trapped contexts by wasteful bytes. Members of "analyses" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, bytes, leafName, context, FlameGraph, rankTable, N, graphRow, contexts
  } = waspReport.kit;

  function draw(a, name) {
    app.append(el('p', { text: 'F_prog ' + pct(a.fraction) + ': ' + bytes(a.wasted_bytes) + ' exact + ' +
      bytes(a.wasted_bytes_approx) + ' approximate of ' + bytes(a.bytes) + ' stored in ' +
      'classified pairs standing for ' + num(a.pairs_classified) + ' samples.' }));
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

  waspReport.section(['deadstore', 'silentstore', 'silentload'], draw);
})();
