// The locks analysis's section of the HTML report (cli/html_part.h): the
// locked classes ranked by lock samples, the slow-path functions, and a flame
// graph of acquiring contexts, then the class. Member "locks" (docs/report-json.md).
'use strict';

(function () {
  // The report's frame (src/cli/html/report.js) and the helpers (common.js).
  const {
    app, el, num, pct, leafName, FlameGraph, rankTable, N, graphRow, contexts, className
  } = waspReport.kit;

  function draw(l) {
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

  waspReport.section('locks', draw, { legend: { lock: 'locked class' } });
})();
