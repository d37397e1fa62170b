// node --test reporter that fails the run when a test was announced but never reported passed or failed (a file's process that exited mid-run).
//
// Node's runner counts a test file's process that exits with status 0 as passed, whatever it had
// left to run: under --test-force-exit, Node 20 ended onnxruntime.test.mjs's process while its
// second suite ran (nodejs/node#54327), and make test printed 11 fewer tests and passed. Every
// test and suite is announced (test:enqueue) before it runs and ends in test:pass or test:fail
// (skipped and todo tests included); this reporter pairs them per file, line and name, prints the
// ones left open and sets a failing exit status. Use it beside the spec reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./tests/js/lib/completeness_reporter.mjs --test-reporter-destination=stderr ...

/** The key a test's announcement and its result share. */
function key({ file, line, column, nesting, name }) {
  return `${file}:${line}:${column} ${'  '.repeat(nesting)}${name}`;
}

/**
 * The tests announced and never reported, from a runner's event stream.
 * @param {AsyncIterable<{ type: string, data: object }>} events
 * @returns {Promise<string[]>}
 */
export async function unfinished(events) {
  const open = new Map();
  for await (const { type, data } of events) {
    if (type !== 'test:enqueue' && type !== 'test:pass' && type !== 'test:fail') continue;
    // Node 20 announces each file's process as a test named after the file and reports only
    // its completion: a file that fails shows as its tests' failures or the runner's own.
    if (data.name === data.file) continue;
    const k = key(data);
    open.set(k, (open.get(k) ?? 0) + (type === 'test:enqueue' ? 1 : -1));
  }
  return [...open].filter(([, n]) => n > 0).map(([k]) => k);
}

export default async function* completenessReporter(events) {
  const left = await unfinished(events);
  if (left.length === 0) return;
  process.exitCode = 1;
  yield `\n✖ ${left.length} test(s) and suite(s) started or queued but never reported: the file's process ended without finishing them\n`;
  for (const k of left) yield `  ${k}\n`;
}
