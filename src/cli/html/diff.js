// wasp's HTML diff: builds the page from the diff JSON embedded in it
// (#wasp-data, docs/diff.md): per analysis the change of F_prog, then the
// entries that vanished, appeared, shrank or grew, each with the contexts of
// the side that has it (after when both). A row's contexts open under it
// when it is clicked (the first row's are open at first). No libraries and
// no network: the page must open from disk anywhere.
'use strict';

(function () {
  const d = JSON.parse(document.getElementById('wasp-data').textContent);
  const app = document.getElementById('app');
  const { el, isNum, num, pct, bytes, leafName, kvTable, context } = waspUi; // common.js

  const TITLES = { deadstore: 'Dead stores', silentstore: 'Silent stores', silentload: 'Silent loads',
                   objects: 'Objects', replicas: 'Object replicas' };
  const ORDER = ['vanished', 'appeared', 'shrank', 'grew'];

  function points(v) {
    return isNum(v) ? (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + Math.abs(100 * v).toFixed(1) + ' points'
                    : '\u2013';
  }
  function amount(a, v) { return a.unit === 'bytes' ? bytes(v) : num(v) + ' ' + a.unit; }
  function arrow(x, y) { return x + ' \u2192 ' + y; }
  function isPair(a) { return a.unit === 'bytes'; }

  function header() {
    app.append(el('h1', { text: 'wasp diff' }));
    const side = s => (s || {}).file + ((s || {}).java_command ? '  (' + s.java_command + ')' : '');
    app.append(kvTable([['before', side(d.before)], ['after', side(d.after)],
      ['matched', d.matched_by === 'line' ? 'by source line (frames; the leaf instruction ignored)'
                                          : 'by instruction (frames and leaf instruction)']]));
  }

  // "F_prog 50.6% -> 0.0% (-50.6 points); 4.3 KiB -> 4.9 KiB stored bytes".
  function summary(name, a) {
    const b = a.before || {}, f = a.after || {};
    const missing = [b.profiled === false ? 'not profiled before' : null,
                     f.profiled === false ? 'not profiled after' : null].filter(Boolean);
    let text;
    if (name === 'objects')
      text = arrow(num(b.total), num(f.total)) + ' access samples attributed.';
    else if (isPair(a))
      text = 'F_prog ' + arrow(pct(b.fraction), pct(f.fraction)) + ' (' + points(a.fraction_change) + '); ' +
             arrow(bytes(b.total), bytes(f.total)) + (name === 'silentload' ? ' loaded' : ' stored') + '.';
    else
      text = 'Equal values in ' + arrow(pct(b.fraction), pct(f.fraction)) + ' (' + points(a.fraction_change) +
             ') of ' + arrow(num(b.total), num(f.total)) + ' comparisons.';
    return el('p', { class: 'summary', text: (missing.length ? '(' + missing.join(', ') + ') ' : '') + text });
  }

  function counts(a) {
    const n = {};
    for (const c of a.changes || []) n[c.change] = (n[c.change] || 0) + 1;
    const parts = ORDER.filter(k => n[k]).map(k => n[k] + ' ' + k);
    let text = parts.length ? parts.join(', ') : 'Nothing changed';
    text += '; ' + num(a.unchanged || 0) + ' unchanged.';
    if (a.changes_not_shown > 0) text += ' ' + num(a.changes_not_shown) + ' more changed entries are not shown (--top N shows more).';
    return el('p', { class: 'note', text: text });
  }

  function details(c) {
    if (c.watch || c.trap)
      return [c.approximate ? el('div', { class: 'note', text: 'approximate: float/double within threshold' }) : null,
              context('watched', c.watch), context('trapped at', c.trap)];
    return [el('div', { class: 'ctx-label', text: 'class ' + (c.class || '<unknown class>') }),
            context('allocated at', c.allocation)];
  }

  function rank(c) {
    return [c.rank_before ? '#' + c.rank_before + ' before' : null,
            c.rank_after ? '#' + c.rank_after + ' after' : null].filter(Boolean).join(', ');
  }

  function table(a) {
    const pair = isPair(a);
    const heads = ['change', 'rank', 'share', '=points', '=' + a.unit].concat(
      pair ? ['watched at', 'trapped at'] : ['class', 'allocated at']);
    const body = el('tbody');
    (a.changes || []).forEach(function (c, i) {
      const more = el('tr', { class: 'more', hidden: '' }, [el('td', { colspan: String(heads.length) }, details(c))]);
      const toggle = function () { more.hidden = !more.hidden; row.classList.toggle('open', !more.hidden); };
      const row = el('tr', { class: 'change c-' + c.change, 'data-change': c.change, onclick: toggle }, [
        el('td', {}, [el('span', { class: 'badge c-' + c.change, text: c.change.toUpperCase() })]),
        el('td', { text: rank(c) }),
        el('td', { text: arrow(pct(c.share_before), pct(c.share_after)) }),
        el('td', { class: 'num', text: points(c.share_change) }),
        el('td', { class: 'num', text: arrow(amount(a, c.value_before), amount(a, c.value_after)) })].concat(
        pair ? [el('td', { class: 'mono', 'data-leaf': leafName(c.watch), text: leafName(c.watch) }),
                el('td', { class: 'mono', text: leafName(c.trap) })]
             : [el('td', { class: 'mono', text: c.class || '' }),
                el('td', { class: 'mono', 'data-leaf': leafName(c.allocation), text: leafName(c.allocation) })]));
      body.append(row, more);
      if (i === 0) toggle();
    });
    return el('table', { class: 'rank diff' }, [
      el('thead', {}, [el('tr', {}, heads.map(h =>
        el('th', { class: h.startsWith('=') ? 'num' : '', text: h.replace(/^=/, '') })))]), body]);
  }

  app.textContent = '';
  header();
  const analyses = d.analyses || {};
  for (const name of Object.keys(analyses)) {
    const a = analyses[name];
    app.append(el('h2', { 'data-analysis': name, text: (TITLES[name] || name) }));
    app.append(summary(name, a), counts(a));
    if ((a.changes || []).length) app.append(table(a));
  }
  if (!Object.keys(analyses).length)
    app.append(el('p', { class: 'note', text: 'Neither profile has an analysis to compare.' }));
  document.body.setAttribute('data-ready', '1'); // the page is built (tests wait for this)
})();
