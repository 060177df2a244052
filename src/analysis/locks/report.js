// The locks analysis's section of the HTML report (cli/render/html_part.h): the
// locked classes ranked by lock samples, the slow-path functions, a flame
// graph of acquiring contexts, then the class, and the time blocked on locks.
// Member "locks" (docs/report-json.md).
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
    blocked(l.blocked);
  }

  // Time blocked (member "blocked"): threads found waiting to enter a monitor
  // or parked by a java.util.concurrent lock, a look every period_ms.
  function blocked(b) {
    if (!b) return;
    const s = x => x.toFixed(x < 10 ? 2 : 1) + ' s';
    app.append(el('h3', { text: 'Time blocked on locks' }));
    app.append(el('p', { text: s(b.seconds) + ' blocked in ' + num(b.samples) + ' samples (a look at every thread ' +
      'every ' + b.period_ms + ' ms; ' + num(b.looks) + ' looks cost ' + b.cpu_ms + ' ms of CPU).' }));
    const classes = b.classes || [];
    if (!classes.length) return;
    const counts = x => s(x.seconds) + ' blocked (' + s(x.seconds_low) + ' to ' + s(x.seconds_high) + '), ' +
                        num(x.samples) + ' samples';
    rankTable(['=share', 'class', 'kind', '=blocked', '=95% interval', '=samples', 'waiting at'], classes,
      c => [N(pct(c.share)), className(c.class), c.kind, N(s(c.seconds)),
            N(s(c.seconds_low) + ' to ' + s(c.seconds_high)), N(num(c.samples)), leafName((c.contexts || [])[0])],
      [], { name: 'locks.blocked', details: c => contexts(c.contexts, counts) });
  }

  waspReport.section('locks', draw, { legend: { lock: 'locked class' } });
})();
