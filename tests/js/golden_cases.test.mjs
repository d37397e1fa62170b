// Every public golden case (tests/cases) through both wasm variants, by the copying API and by heap tensors.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { checkCase, describeResult, listCases } from './lib/cases.mjs';

const DIR = fileURLToPath(new URL('../cases', import.meta.url));
const names = listCases(DIR);
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());

test('the golden case directory is there and complete', () => {
  // tests/cases/README.md: 521 cases. Fewer would silently shrink this suite.
  assert.ok(names.length >= 521, `${names.length} cases in ${DIR}`);
});

for (const variant of variants) {
  const gs = await load({ variant });
  describe(gs.backend, () => {
    for (const name of names) {
      test(name, () => {
        for (const path of ['copy', 'heap']) {
          const r = checkCase(gs, DIR, name, path);
          assert.ok(r.passed, `${path} path: ${describeResult(r, gs.backend)}`);
        }
      });
    }
  });
}
