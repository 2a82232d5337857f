// Measures a rendered report page for tests/it/report_layout.rs (issue 23: "a report
// nobody can misread"). Injected as a <script> just before </body> of a copy of the page
// and run in headless Chromium (--dump-dom); it appends one JSON object to the body, in
// a pre element whose id is OUT_ID, non-ASCII and <>& escaped as \uXXXX so the DOM dump
// holds the JSON byte for byte (the test reads the last such element of the dump).
//
// What it measures, on the page as shipped (closed <details> stay closed; what they hide
// has no box and is skipped):
//   outside   every <text> of an <svg> whose box reaches outside its own svg's box by
//             more than TOLERANCE px (the part outside is clipped: a cut label), with
//             how far on which side and where it starts in the svg's user units;
//   overlaps  every pair of <text> of one svg whose boxes intersect in more than
//             MIN_OVERLAP px² (labels drawn over each other), with where they start;
//   colours   every stroke colour shared by two or more line series (<polyline>, or
//             <path class="series">) of one svg, with the texts drawn in or beside that
//             colour (legend entries, direct labels), so a reader can tell which lines
//             are confused;
//   page      document height, the window's height and width, and the number of screens;
//   sections  every top-level <section id=...>: its id, top and height (for screenshots);
//   details   how many <details> the page has and how many are open.
// Boxes of text are their glyph boxes (getBBox) mapped to the screen by the element's
// transform (getScreenCTM): a rotated label is a rotated rectangle, not its much larger
// axis-aligned hull, so rotated axis labels next to each other do not count as overlapping.
(function () {
  "use strict";
  const TOLERANCE = 0.5;
  const MIN_OVERLAP = 1.0;
  const OUT_ID = "robots-census-layout-measure";

  const round = (v) => Math.round(v * 10) / 10;

  // The four corners of an element's user-space box, in client (viewport) coordinates.
  function quad(el) {
    let bb;
    try {
      bb = el.getBBox();
    } catch (e) {
      return null;
    }
    const m = el.getScreenCTM();
    if (!m || (bb.width === 0 && bb.height === 0)) return null;
    const map = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    const corners = [
      map(bb.x, bb.y),
      map(bb.x + bb.width, bb.y),
      map(bb.x + bb.width, bb.y + bb.height),
      map(bb.x, bb.y + bb.height),
    ];
    // Where it is in the svg's own coordinates (its viewBox), to find it in the source.
    corners.at_user = [round(bb.x), round(bb.y)];
    return corners;
  }

  function area(poly) {
    let s = 0;
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i];
      const [x2, y2] = poly[(i + 1) % poly.length];
      s += x1 * y2 - x2 * y1;
    }
    return Math.abs(s) / 2;
  }

  // Orders a quad counter-clockwise in screen terms (a mirrored transform flips it).
  function ccw(poly) {
    let s = 0;
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i];
      const [x2, y2] = poly[(i + 1) % poly.length];
      s += x1 * y2 - x2 * y1;
    }
    return s < 0 ? poly.slice().reverse() : poly;
  }

  // Area of the intersection of two convex polygons (Sutherland-Hodgman clipping).
  function intersection(subject, clip) {
    let out = ccw(subject);
    const c = ccw(clip);
    for (let i = 0; i < c.length && out.length; i++) {
      const [ax, ay] = c[i];
      const [bx, by] = c[(i + 1) % c.length];
      const inside = ([px, py]) => (bx - ax) * (py - ay) - (by - ay) * (px - ax) >= 0;
      const cross = ([px, py], [qx, qy]) => {
        const d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
        const d2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
        const t = d1 / (d1 - d2);
        return [px + t * (qx - px), py + t * (qy - py)];
      };
      const input = out;
      out = [];
      for (let j = 0; j < input.length; j++) {
        const p = input[j];
        const q = input[(j + 1) % input.length];
        if (inside(q)) {
          if (!inside(p)) out.push(cross(p, q));
          out.push(q);
        } else if (inside(p)) {
          out.push(cross(p, q));
        }
      }
    }
    return out.length >= 3 ? area(out) : 0;
  }

  function bounds(poly) {
    const xs = poly.map((p) => p[0]);
    const ys = poly.map((p) => p[1]);
    return {
      left: Math.min(...xs),
      right: Math.max(...xs),
      top: Math.min(...ys),
      bottom: Math.max(...ys),
    };
  }

  // Whether `el` is drawn: Chromium lays out the content of a closed <details> (it is
  // skipped content, content-visibility: hidden) but does not paint it.
  function shown(el) {
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    for (let a = el; a; a = a.parentElement) {
      const d = a.parentElement && a.parentElement.closest("details");
      if (!d) break;
      const summary = Array.from(d.children).find((c) => c.tagName.toLowerCase() === "summary");
      if (!d.open && !(summary && summary.contains(el))) return false;
      a = d;
    }
    return true;
  }

  const textOf = (el) => (el.textContent || "").replace(/\s+/g, " ").trim();

  // How a reader finds this svg: its id, else its position and section.
  function svgName(svg, k) {
    if (svg.id) return svg.id;
    const section = svg.closest("section[id]");
    return `svg #${k}` + (section ? ` in section ${section.id}` : "");
  }

  // The rendered stroke colour of a series, or null when it draws no line.
  function strokeOf(el) {
    const style = getComputedStyle(el);
    const s = style.stroke;
    if (!s || s === "none" || s === "transparent" || s === "rgba(0, 0, 0, 0)") return null;
    if (style.display === "none" || style.visibility === "hidden") return null;
    if (parseFloat(style.strokeOpacity) === 0 || parseFloat(style.strokeWidth) === 0) return null;
    return s;
  }

  // A series' own name: an attribute the page gives it, or its <title>.
  function seriesName(el, k) {
    for (const a of ["data-series", "data-agent", "aria-label", "data-name"]) {
      const v = el.getAttribute(a);
      if (v) return v;
    }
    const title = Array.from(el.children).find((c) => c.tagName.toLowerCase() === "title");
    if (title && textOf(title)) return textOf(title);
    const g = el.closest("g[data-series], g[data-agent], g[aria-label]");
    if (g) return g.getAttribute("data-series") || g.getAttribute("data-agent") || g.getAttribute("aria-label");
    return `series #${k}`;
  }

  // Texts drawn in `colour`, or right after a swatch (rect, line, circle, path) of it:
  // the legend entries and direct labels a reader would match the line with.
  function labelsOf(svg, colour, series) {
    const names = [];
    for (const t of svg.querySelectorAll("text")) {
      if (getComputedStyle(t).fill === colour && textOf(t)) names.push(textOf(t));
    }
    for (const sw of svg.querySelectorAll("rect, line, circle, path")) {
      if (series.includes(sw)) continue;
      const st = getComputedStyle(sw);
      if (st.fill !== colour && st.stroke !== colour) continue;
      const next = sw.nextElementSibling;
      if (next && next.tagName.toLowerCase() === "text" && textOf(next)) names.push(textOf(next));
    }
    return Array.from(new Set(names));
  }

  function measure() {
    const result = {
      outside: [],
      overlaps: [],
      colours: [],
      svgs: [],
      sections: [],
      details: { total: 0, open: 0 },
      page: {},
    };
    const svgs = Array.from(document.querySelectorAll("svg"));
    svgs.forEach((svg, k) => {
      const name = svgName(svg, k);
      const box = svg.getBoundingClientRect();
      // Not shown (in a closed <details>, display: none): nothing a reader sees.
      if ((box.width === 0 && box.height === 0) || !shown(svg)) return;
      const texts = [];
      for (const t of svg.querySelectorAll("text")) {
        if (t.ownerSVGElement !== svg) continue;
        if (t.checkVisibility && !t.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
        const q = quad(t);
        if (!q || !textOf(t)) continue;
        texts.push({ text: textOf(t), quad: q, bounds: bounds(q), at: q.at_user });
      }
      for (const t of texts) {
        const b = t.bounds;
        const over = {
          left: box.left - b.left,
          right: b.right - box.right,
          top: box.top - b.top,
          bottom: b.bottom - box.bottom,
        };
        const sides = Object.entries(over).filter(([, v]) => v > TOLERANCE);
        if (sides.length) {
          result.outside.push({
            svg: name,
            text: t.text,
            at: t.at,
            by: Object.fromEntries(sides.map(([s, v]) => [s, round(v)])),
          });
        }
      }
      // Pairs: sorted by left edge, a pair can only meet while the next one starts
      // before this one ends (keeps 1,000-label charts fast).
      const order = texts.slice().sort((a, b) => a.bounds.left - b.bounds.left);
      for (let i = 0; i < order.length; i++) {
        const a = order[i];
        for (let j = i + 1; j < order.length; j++) {
          const b = order[j];
          if (b.bounds.left >= a.bounds.right) break;
          if (b.bounds.top >= a.bounds.bottom || a.bounds.top >= b.bounds.bottom) continue;
          const overlap = intersection(a.quad, b.quad);
          if (overlap > MIN_OVERLAP) {
            result.overlaps.push({
              svg: name,
              texts: [a.text, b.text],
              at: [a.at, b.at],
              area: round(overlap),
            });
          }
        }
      }
      const series = Array.from(svg.querySelectorAll("polyline, path.series")).filter(
        (el) => el.ownerSVGElement === svg
      );
      const byColour = new Map();
      series.forEach((el, i) => {
        const colour = strokeOf(el);
        if (!colour) return;
        if (!byColour.has(colour)) byColour.set(colour, []);
        byColour.get(colour).push({ el, name: seriesName(el, i) });
      });
      for (const [colour, list] of byColour) {
        if (list.length < 2) continue;
        result.colours.push({
          svg: name,
          colour,
          series: list.map((s) => s.name),
          labels: labelsOf(svg, colour, series),
        });
      }
      result.svgs.push({
        svg: name,
        width: round(box.width),
        height: round(box.height),
        texts: texts.length,
        series: series.length,
        marks: svg.querySelectorAll("rect, polyline, path, circle").length,
      });
    });
    // Top-level sections: those inside no other section.
    for (const s of document.querySelectorAll("section[id]")) {
      if (s.parentElement && s.parentElement.closest("section")) continue;
      const r = s.getBoundingClientRect();
      result.sections.push({ id: s.id, top: round(r.top + window.scrollY), height: round(r.height) });
    }
    const details = document.querySelectorAll("details");
    result.details = { total: details.length, open: Array.from(details).filter((d) => d.open).length };
    const height = document.documentElement.scrollHeight;
    result.page = {
      height,
      width: document.documentElement.scrollWidth,
      window_width: window.innerWidth,
      window_height: window.innerHeight,
      screens: round(height / window.innerHeight),
    };
    return result;
  }

  let result;
  try {
    result = measure();
  } catch (e) {
    result = { error: String(e && e.stack ? e.stack : e) };
  }
  const json = JSON.stringify(result).replace(
    /[<>&\u0080-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")
  );
  const pre = document.createElement("pre");
  pre.id = OUT_ID;
  pre.textContent = json;
  document.body.appendChild(pre);
})();
