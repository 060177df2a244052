// wasp's HTML diff: builds the page from the diff JSON embedded in it
// (#wasp-data, docs/diff.md): first the summary's places, their CPU before
// and after; then per analysis the change of F_prog, then the
// entries that vanished, appeared, shrank or grew, each with the contexts of
// the side that has it (after when both); changes within sampling noise say
// so ("within noise") and come after the significant ones, as in the data. A row's contexts open under it
// when it is clicked (the first row's are open at first). What an analysis
// shows (its title, summary, columns and the details under a row) is in its
// member of the data, written by its diff part (cli/diff/diff_part.h): nothing
// here names an analysis. A sub view's section (locks' blocked time) is a
// member of its analysis's holding changes of its own, drawn after it. No
// libraries and no network: the page must open from disk anywhere.
'use strict';

(function () {
  const d = JSON.parse(document.getElementById('wasp-data').textContent);
  const app = document.getElementById('app');
  const { el, isNum, num, pct, bytes, leafName, kvTable, context } = waspUi; // common.js

  function points(v) {
    return isNum(v) ? (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + Math.abs(100 * v).toFixed(1) + ' points'
                    : '\u2013';
  }
  function amount(a, v) { return a.unit === 'bytes' ? bytes(v) : num(v) + ' ' + a.unit; }
  function arrow(x, y) { return x + ' \u2192 ' + y; }

  function header() {
    app.append(el('h1', { text: 'wasp diff' }));
    const side = s => (s || {}).file + ((s || {}).java_command ? '  (' + s.java_command + ')' : '');
    const test = d.noise_test || {};
    app.append(kvTable([['before', side(d.before)], ['after', side(d.after)],
      ['matched', d.matched_by === 'line' ? 'by source line (frames; the leaf instruction ignored)'
                                          : 'by instruction (frames and leaf instruction)'],
      ['changes', (d.changes_summary || '') + (isNum(test.family_alpha)
        ? ' (a test of each share of samples, ' + (100 * test.family_alpha) + '% family-wise)' : '')]]));
    // a side that armed too few samples for its changes to say much (docs/diff.md)
    for (const [label, s] of [['before', d.before], ['after', d.after]])
      for (const w of (s || {}).warnings || []) app.append(el('p', { class: 'warning', text: label + ': ' + w }));
  }

  // "F_prog 50.6% -> 0.0% (-50.6 points); 4.3 KiB -> 4.9 KiB stored bytes", as the text diff says it.
  function summary(a) {
    const b = a.before || {}, f = a.after || {};
    const missing = [b.profiled === false ? 'not profiled before' : null,
                     f.profiled === false ? 'not profiled after' : null].filter(Boolean);
    return el('p', { class: 'summary', text: (missing.length ? '(' + missing.join(', ') + ') ' : '') +
                                             (a.summary || '') + '.' });
  }

  function counts(a) {
    let text = a.changes_summary || '';
    if (!/unchanged/.test(text)) text += '; ' + num(a.unchanged || 0) + ' unchanged';
    text += '.';
    if (a.changes_not_shown > 0) text += ' ' + num(a.changes_not_shown) + ' more changed entries are not shown (--top N shows more).';
    return el('p', { class: 'note', text: text });
  }

  // What opens under a change: a.details, each a context, a member's text, or a note when a flag is set.
  function details(a, c) {
    return (a.details || []).map(function (t) {
      if (t.when) return c[t.when] ? el('div', { class: 'note', text: t.label }) : null;
      if (t.context) return context(t.label, c[t.member]);
      return el('div', { class: 'ctx-label', text: t.label + ' ' + (c[t.member] == null ? '' : c[t.member]) });
    });
  }

  // A change's own cells, a.columns: a context's leaf frame (the first one
  // carries data-leaf), or a member's text.
  function cells(a, c) {
    let leaf = false;
    return (a.columns || []).map(function (col) {
      if (!col.context) return el('td', { class: 'mono', text: c[col.member] == null ? '' : String(c[col.member]) });
      const props = { class: 'mono', text: leafName(c[col.member]) };
      if (!leaf) { props['data-leaf'] = props.text; leaf = true; }
      return el('td', props);
    });
  }

  function rank(c) {
    return [c.rank_before ? '#' + c.rank_before + ' before' : null,
            c.rank_after ? '#' + c.rank_after + ' after' : null].filter(Boolean).join(', ');
  }

  function table(a) {
    const heads = ['change', 'rank', 'share', '=points', '=' + a.unit].concat((a.columns || []).map(c => c.title));
    const body = el('tbody');
    (a.changes || []).forEach(function (c, i) {
      const more = el('tr', { class: 'more', hidden: '' }, [el('td', { colspan: String(heads.length) }, details(a, c))]);
      const toggle = function () { more.hidden = !more.hidden; row.classList.toggle('open', !more.hidden); };
      const noise = c.significant === false;
      const row = el('tr', { class: 'change c-' + c.change + (noise ? ' noise' : ''), 'data-change': c.change,
                             'data-significant': noise ? '0' : '1', onclick: toggle }, [
        el('td', {}, [el('span', { class: 'badge c-' + c.change, text: c.change.toUpperCase() })].concat(
          noise ? [el('span', { class: 'note', text: ' within noise' })] : [])),
        el('td', { text: rank(c) }),
        el('td', { text: arrow(pct(c.share_before), pct(c.share_after)) }),
        el('td', { class: 'num', text: points(c.share_change) }),
        el('td', { class: 'num', text: arrow(amount(a, c.value_before), amount(a, c.value_after)) })].concat(
        cells(a, c)));
      body.append(row, more);
      if (i === 0) toggle();
    });
    return el('table', { class: 'rank diff' }, [
      el('thead', {}, [el('tr', {}, heads.map(h =>
        el('th', { class: h.startsWith('=') ? 'num' : '', text: h.replace(/^=/, '') })))]), body]);
  }

  // The summary (docs/diff.md, "The summary"): per analysis the places of
  // either side's first findings, their CPU before -> after and whether the
  // change is beyond the noise, what each side says of them. A row carries
  // data-place and data-significant (tests).
  function summaryPlaces(s) {
    if (!s || !(s.analyses || []).length) return;
    app.append(el('h2', { 'data-summary': '1', text: 'Summary: the places of the first findings, before and after' }));
    const cpu = (p, side) => isNum(p[side].cpu_share) ? pct(p[side].cpu_share) : 'n/a';
    const said = v => v.rank ? '#' + v.rank + ': ' + v.what : 'not among its first findings';
    s.analyses.forEach(function (a) {
      app.append(el('h3', { text: a.title || a.analysis }));
      if (!(a.places || []).length) { app.append(el('p', { class: 'note', text: 'nothing found on either side' })); return; }
      const body = el('tbody', {}, a.places.map(p => el('tr', {
        'data-place': p.place, 'data-significant': p.significant ? '1' : '0' }, [
        el('td', { class: 'mono', text: p.place + (p.class ? ' (' + p.class + ' objects)' : '') }),
        el('td', { class: 'num', text: arrow(cpu(p, 'before'), cpu(p, 'after')) }),
        el('td', { text: !p.tested ? 'not tested' : p.significant ? 'significant' : 'within noise' }),
        el('td', { text: said(p.before) }), el('td', { text: said(p.after) })])));
      app.append(el('table', { class: 'rank diff' }, [el('thead', {}, [el('tr', {},
        ['place', '=CPU', 'change', 'before', 'after'].map(h =>
          el('th', { class: h.startsWith('=') ? 'num' : '', text: h.replace(/^=/, '') })))]), body]));
    });
  }

  // A section: an analysis (h2), or a sub view's (h3, data-analysis "locks.blocked"), then its subs.
  function section(a, name, heading) {
    app.append(el(heading, { 'data-analysis': name, text: a.title || name }));
    app.append(summary(a), counts(a));
    if ((a.changes || []).length) app.append(table(a));
    for (const k of Object.keys(a)) {
      const sub = a[k];
      if (sub && typeof sub === 'object' && Array.isArray(sub.changes)) section(sub, name + '.' + k, 'h3');
    }
  }

  app.textContent = '';
  header();
  summaryPlaces(d.summary);
  const analyses = d.analyses || {};
  for (const name of Object.keys(analyses)) section(analyses[name], name, 'h2');
  if (!Object.keys(analyses).length)
    app.append(el('p', { class: 'note', text: 'Neither profile has an analysis to compare.' }));
  document.body.setAttribute('data-ready', '1'); // the page is built (tests wait for this)
})();
