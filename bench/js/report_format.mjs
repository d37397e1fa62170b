// How RESULTS.md writes its figures (ms, speed-ups) and tables, and which rows' figures it may compare (usable): shared by the report's sections and chart.mjs.

export const ms = (t) => (t >= 100 ? t.toFixed(1) : t >= 10 ? t.toFixed(2) : t.toFixed(3));
/** A speed-up as the report writes it: `3.27x`, `21.7x`. */
export const ratio = (x) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;

/** Whether a row's median may be compared: timed, and its output matches. */
export function usable(res) {
  return res && res.status === 'ok' && (!res.check || res.check.ok);
}

export function table(header, rows) {
  // A '|' in a cell (onnxruntime's messages quote C++ conditions) would end it.
  const line = (cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
