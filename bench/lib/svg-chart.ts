/**
 * A grouped bar chart as a self-contained SVG: panels side by side (each with its own y axis, so
 * concurrency 1 and 64 both read), a group of bars per x label, one colour per series, the value on
 * each bar, a legend. White background and explicit fills, so it reads the same in GitHub's light and
 * dark themes.
 */
import type { ChartPanel, ChartSpec } from "./results.js";

const BAR = 40;
const BAR_GAP = 4;
const GROUP_GAP = 30;
const PLOT_HEIGHT = 230;
const AXIS_WIDTH = 62;
const PANEL_GAP = 28;
const MARGIN = 18;
const CHAR = 6.4; // average width of a 11px sans-serif character, for wrapping
const INK = "#1f2937";
const MUTED = "#6b7280";
const GRID = "#e5e7eb";
const FONT = "font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\"";

/** This client blue, the Switchboard green, the SDK amber, the raw loop grey; others from a fixed palette. */
export function seriesColour(series: string, index: number): string {
  const name = series.toLowerCase();
  if (name.includes("via switchboard") || name === "switchboard") return "#059669";
  if (name.startsWith("mcp-switchboard")) return "#2563eb";
  if (name.includes("sdk v2")) return "#dc2626";
  if (name.includes("sdk")) return "#f59e0b";
  if (name.includes("raw")) return "#6b7280";
  return ["#7c3aed", "#0891b2", "#db2777", "#65a30d"][index % 4];
}

export function compact(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3, abs >= 1e5 ? 0 : 1)}k`;
  if (abs >= 100) return Math.round(value).toLocaleString("en-US");
  if (abs >= 10) return trim(value, 1);
  return trim(value, 2);
}

function trim(value: number, digits = 1): string {
  return String(Number(value.toFixed(digits)));
}

/** A round axis maximum at or above `max`, and its ticks. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough)!;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step * 0.999; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function wrap(text: string, width: number): string[] {
  const perLine = Math.max(6, Math.floor(width / CHAR));
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && (line + " " + word).length > perLine) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function seriesOf(spec: ChartSpec): string[] {
  const all: string[] = [];
  for (const panel of spec.panels) for (const group of panel.groups) for (const name of Object.keys(group.values)) if (!all.includes(name)) all.push(name);
  return all;
}

const MIN_SLOT = 70;
const barsWidth = (group: ChartPanel["groups"][number]) => Object.keys(group.values).length * (BAR + BAR_GAP) - BAR_GAP;

/** The width the groups of a panel take, margins included. */
function contentWidth(panel: ChartPanel): number {
  const slots = panel.groups.reduce((sum, group) => sum + Math.max(barsWidth(group), MIN_SLOT), 0);
  return 12 + slots + GROUP_GAP * Math.max(0, panel.groups.length - 1) + 12;
}

function panelWidth(panel: ChartPanel): number {
  return AXIS_WIDTH + Math.max(contentWidth(panel), panel.title.length * 7.4 /* 13px bold */);
}

/** `subtitle`: a muted line under the title (the machine and date). */
export function renderChart(spec: ChartSpec, subtitle?: string): string {
  const series = seriesOf(spec);
  const widths = spec.panels.map(panelWidth);
  const width = Math.ceil(
    Math.max(MARGIN * 2 + widths.reduce((a, b) => a + b, 0) + PANEL_GAP * (widths.length - 1), MARGIN * 2 + spec.title.length * 8.8 /* 16px bold */, 560),
  );
  const subtitleLines = subtitle ? wrap(subtitle, width - MARGIN * 2) : [];
  // Legend: swatches in rows that fit the width.
  const legend: { name: string; x: number; row: number }[] = [];
  let lx = MARGIN;
  let row = 0;
  for (const name of series) {
    const itemWidth = 22 + name.length * CHAR + 18;
    if (lx + itemWidth > width - MARGIN && lx > MARGIN) {
      row++;
      lx = MARGIN;
    }
    legend.push({ name, x: lx, row });
    lx += itemWidth;
  }
  const legendTop = 44 + subtitleLines.length * 15 + (subtitleLines.length > 0 ? 4 : 0);
  const plotTop = legendTop + (row + 1) * 20 + 34;
  const labelLines = Math.max(
    1,
    ...spec.panels.flatMap((panel) => panel.groups.map((group) => wrap(group.label, Math.max(barsWidth(group), MIN_SLOT) + GROUP_GAP - 8).length)),
  );
  const height = plotTop + PLOT_HEIGHT + 12 + labelLines * 14 + (spec.xLabel ? 24 : 6) + MARGIN;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(spec.title)}">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" rx="6" fill="#ffffff"/>`);
  out.push(`<text x="${MARGIN}" y="28" ${FONT} font-size="16" font-weight="600" fill="${INK}">${escape(spec.title)}</text>`);
  subtitleLines.forEach((line, i) => out.push(`<text x="${MARGIN}" y="${47 + i * 15}" ${FONT} font-size="11" fill="${MUTED}">${escape(line)}</text>`));
  for (const item of legend) {
    const y = legendTop + item.row * 20;
    const colour = seriesColour(item.name, series.indexOf(item.name));
    out.push(`<rect x="${item.x}" y="${y}" width="14" height="14" rx="2" fill="${colour}"/>`);
    out.push(`<text x="${item.x + 20}" y="${y + 11.5}" ${FONT} font-size="12" fill="${INK}">${escape(item.name)}</text>`);
  }

  let x0 = MARGIN;
  spec.panels.forEach((panel, p) => {
    out.push(...renderPanel(panel, series, x0, plotTop, widths[p], labelLines));
    x0 += widths[p] + PANEL_GAP;
  });
  if (spec.xLabel)
    out.push(`<text x="${width / 2}" y="${height - MARGIN + 2}" text-anchor="middle" ${FONT} font-size="12" fill="${MUTED}">${escape(spec.xLabel)}</text>`);
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

function renderPanel(panel: ChartPanel, series: string[], x0: number, top: number, width: number, labelLines: number): string[] {
  const out: string[] = [];
  const values = panel.groups.flatMap((group) => Object.values(group.values));
  const ticks = niceTicks(Math.max(...values, panel.threshold?.value ?? 0) * 1.08);
  const max = ticks[ticks.length - 1];
  const bottom = top + PLOT_HEIGHT;
  const y = (value: number) => bottom - (value / max) * PLOT_HEIGHT;
  const plotLeft = x0 + AXIS_WIDTH;
  const plotRight = x0 + width;

  out.push(`<text x="${plotLeft}" y="${top - 14}" ${FONT} font-size="13" font-weight="600" fill="${INK}">${escape(panel.title)}</text>`);
  for (const tick of ticks) {
    out.push(`<line x1="${plotLeft}" y1="${y(tick)}" x2="${plotRight}" y2="${y(tick)}" stroke="${GRID}" stroke-width="1"/>`);
    out.push(
      `<text x="${plotLeft - 6}" y="${y(tick) + 4}" text-anchor="end" ${FONT} font-size="11" fill="${MUTED}">${max >= 10_000 && tick > 0 ? `${trim(tick / 1000, 1)}k` : compact(tick)}</text>`,
    );
  }
  out.push(`<line x1="${plotLeft}" y1="${bottom}" x2="${plotRight}" y2="${bottom}" stroke="${MUTED}" stroke-width="1"/>`);
  const axisX = x0 + 14;
  const axisY = top + PLOT_HEIGHT / 2;
  out.push(
    `<text x="${axisX}" y="${axisY}" transform="rotate(-90 ${axisX} ${axisY})" text-anchor="middle" ${FONT} font-size="12" fill="${MUTED}">${escape(panel.unit)}</text>`,
  );

  let gx = plotLeft + 12 + (width - AXIS_WIDTH - contentWidth(panel)) / 2;
  for (const group of panel.groups) {
    const entries = Object.entries(group.values);
    const slot = Math.max(barsWidth(group), MIN_SLOT);
    let bx = gx + (slot - barsWidth(group)) / 2;
    for (const [name, value] of entries) {
      const colour = seriesColour(name, series.indexOf(name));
      const barTop = y(value);
      out.push(
        `<rect x="${bx}" y="${barTop}" width="${BAR}" height="${Math.max(0, bottom - barTop)}" fill="${colour}"><title>${escape(`${name}: ${value} ${panel.unit}`)}</title></rect>`,
      );
      out.push(`<text x="${bx + BAR / 2}" y="${barTop - 4}" text-anchor="middle" ${FONT} font-size="11" fill="${INK}">${compact(value)}</text>`);
      bx += BAR + BAR_GAP;
    }
    wrap(group.label, slot + GROUP_GAP - 8)
      .slice(0, labelLines)
      .forEach((line, i) =>
        out.push(`<text x="${gx + slot / 2}" y="${bottom + 16 + i * 14}" text-anchor="middle" ${FONT} font-size="11" fill="${INK}">${escape(line)}</text>`),
      );
    gx += slot + GROUP_GAP;
  }
  if (panel.threshold) {
    const ty = y(panel.threshold.value);
    out.push(`<line x1="${plotLeft}" y1="${ty}" x2="${plotRight}" y2="${ty}" stroke="#dc2626" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    // A white halo keeps the label readable where it crosses a bar.
    out.push(
      `<text x="${plotRight}" y="${ty - 5}" text-anchor="end" ${FONT} font-size="11" fill="#dc2626" stroke="#ffffff" stroke-width="3" paint-order="stroke">${escape(panel.threshold.label)}</text>`,
    );
  }
  return out;
}
