// make test's completeness reporter: a test file whose process ends before its tests are reported fails the run instead of passing with fewer tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const reporter = fileURLToPath(new URL('./lib/completeness_reporter.mjs', import.meta.url));
const testJs = fileURLToPath(new URL('../../scripts/test_js.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gridsample-completeness-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs node --test on fixture files (name -> source) as test_js.sh does, with or without the reporter. */
function runTests(files, { withReporter = true } = {}) {
  const paths = Object.entries(files).map(([name, source]) => {
    const path = join(dir, name);
    writeFileSync(path, source);
    return path;
  });
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
  if (withReporter) reporters.push(`--test-reporter=${reporter}`, '--test-reporter-destination=stderr');
  // Without NODE_TEST_CONTEXT, which marks this file's process as a runner's child: the nested
  // runner would otherwise stream its events to us instead of reporting them.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const args = ['--test', '--test-timeout=60000', ...reporters, ...paths];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env, timeout: 120000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The process exits with status 0 in the second suite's first test: what --test-force-exit did
// to onnxruntime.test.mjs, made certain.
const CUT_SHORT = `import { describe, test } from 'node:test';
describe('first suite', () => { test('a', () => {}); test('b', async () => {}); });
describe('second suite', () => {
  test('c', async () => { await new Promise((r) => setTimeout(r, 20)); process.exit(0); });
  test('d', () => {});
});
`;
const WHOLE = `import { test } from 'node:test';
test('another file', () => {});
`;

test('a file whose process exits 0 mid-suite passes the plain runner but fails with the reporter, which names what never ran', () => {
  const plain = runTests({ 'cut_short.mjs': CUT_SHORT, 'whole.mjs': WHOLE }, { withReporter: false });
  assert.equal(plain.status, 0, 'the runner alone counts the cut-short file as passed (the bug the reporter guards against)');
  assert.match(plain.stdout, /ℹ tests 3\n/);

  const r = runTests({ 'cut_short.mjs': CUT_SHORT, 'whole.mjs': WHOLE });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /3 test\(s\) and suite\(s\) started or queued but never reported/);
  const named = r.stderr.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim().replace(/^\S+ +/, ''));
  assert.deepEqual(named.sort(), ['c', 'd', 'second suite']);
});

test('every way a test can end counts as reported: pass, fail, skip, todo, subtests, nested suites, a failing hook', () => {
  const source = `import { before, describe, test } from 'node:test';
describe('outer', () => {
  describe('inner', () => { test('nested', () => {}); });
  test('skipped', { skip: 'not here' }, () => {});
  test('todo', { todo: true }, () => {});
  test('with subtests', async (t) => { await t.test('sub 1', () => {}); await t.test('sub 2', () => {}); });
  test('same name', () => {});
  test('same name', () => {});
});
describe('hook fails', () => {
  before(() => { throw new Error('setup failed'); });
  test('cancelled by the hook', () => {});
});
test('fails', () => { throw new Error('expected failure'); });
`;
  const r = runTests({ 'endings.mjs': source });
  assert.equal(r.status, 1, 'the failures fail the run');
  assert.match(r.stdout, /expected failure/);
  assert.doesNotMatch(r.stderr, /never reported/, r.stderr);

  const passing = runTests({ 'whole.mjs': WHOLE });
  assert.equal(passing.status, 0, passing.stderr);
  assert.equal(passing.stderr, '');
});

test('make test runs node --test with the reporter and without --test-force-exit', () => {
  const script = readFileSync(testJs, 'utf8');
  const command = script.slice(script.indexOf('node --no-concurrent-recompilation --test'));
  assert.match(command, /--test-reporter=\.\/tests\/js\/lib\/completeness_reporter\.mjs/);
  assert.doesNotMatch(command, /--test-force-exit/);
});
