// WCAG 2 contrast of every piece of visible text on the page (header, navigation, article,
// footer) against what lies behind it, as the browser paints it:
// - colours with alpha are composited over the backgrounds of their ancestors, and the
//   results are rounded to whole 8-bit channels, as Lighthouse (axe-core) does: #717171 on
//   #f5f5f5 is 4.47:1, whereas the unrounded 112.7 grey would pass at 4.496;
// - an ancestor's opacity (Material fades <small> to 75 %) fades the text with it;
// - the ratio is compared unrounded: 4.496 is under 4.5, whatever two decimals say.
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const rounded = (c) => c.map(Math.round);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((bg, c) => over(c, bg), [255, 255, 255, 1]);
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o;
  };
  const luminance = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg, script, style, noscript, template")) continue;
    const text = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
    if (!text || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    const fade = opacity(el);
    if (s.visibility === "hidden" || fade === 0) continue;
    const bg = background(el);
    const fg = parse(s.color);
    fg[3] *= fade;
    const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight, 10) >= 700;
    const value = ratio(rounded(over(fg, bg)), rounded(bg));
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;  // WCAG AA: large text needs 3
    if (value >= need) continue;  // only what fails crosses back to Python
    out.push({
      tag: el.tagName.toLowerCase(), cls: String(el.className), text: text.slice(0, 50),
      ratio: Math.floor(value * 100) / 100,  // for the message only; never rounded up
      need, fails: true,
    });
  }
  return out;
}
