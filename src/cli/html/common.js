// Helpers shared by wasp's HTML pages (report.js, diff.js): building the DOM
// and formatting numbers, bytes and frames. Loaded before the page's script,
// as one global (waspUi), so both pages show numbers and frames alike.
'use strict';

const waspUi = (function () {
  function el(tag, props, kids) {
    const e = document.createElement(tag);
    for (const k in props || {}) {
      if (k === 'class') e.className = props[k];
      else if (k === 'text') e.textContent = props[k];
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), props[k]);
      else e.setAttribute(k, props[k]);
    }
    for (const kid of kids || []) if (kid != null) e.append(kid);
    return e;
  }
  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  function num(v) {
    if (!isNum(v)) return '\u2013';
    return Number.isInteger(v) ? v.toLocaleString('en') : v.toLocaleString('en', { maximumFractionDigits: 3 });
  }
  function pct(v) { return isNum(v) ? (100 * v).toFixed(1) + '%' : '\u2013'; }
  function bytes(v) {
    if (!isNum(v)) return '\u2013';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i ? v.toFixed(1) : Math.round(v)) + ' ' + units[i];
  }
  function frameName(f) {
    return (f.method || '<unknown>') + (isNum(f.line) && f.line >= 0 ? ':' + f.line : '');
  }
  function leafName(ctx) {
    const fr = (ctx && ctx.frames) || [];
    return fr.length ? frameName(fr[fr.length - 1]) : '(no frames)';
  }
  // One context: a label (then its leaf instruction, when known), and its
  // frames root first, leaf last, each coloured by its kind.
  function context(label, ctx) {
    const frames = (ctx && ctx.frames) || [];
    return el('div', { class: 'ctx' }, [
      el('div', { class: 'ctx-label', text: label + (ctx && ctx.instruction ? '   ' + ctx.instruction : '') }),
      el('ol', { class: 'frames' }, frames.map(f => el('li', {
        class: 'k-' + (f.kind || 'unknown'), 'data-method': f.method || '',
        text: frameName(f) + (f.file ? '  (' + f.file + ')' : '') })))]);
  }
  function kvTable(rows) {
    return el('table', { class: 'kv' }, rows.filter(r => r[1] != null && r[1] !== '').map(r =>
      el('tr', {}, [el('th', { text: r[0] }), el('td', { text: String(r[1]) })])));
  }

  return { el: el, isNum: isNum, num: num, pct: pct, bytes: bytes, frameName: frameName,
           leafName: leafName, context: context, kvTable: kvTable };
})();
