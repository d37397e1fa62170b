#!/usr/bin/env node
// Prints the demo's ms per frame at 512×512 in headless Chromium, ours against plain JavaScript, as its "Benchmark this setting" button measures them.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { startDemoServer } from '../../web/demo/server.mjs';

const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
// [page query, flow, mode, padding]: the default view first (warpAffine on the RGBA bytes),
// the other modes, the two-operator path on float32 (?fused=0) and a flow preset.
const SETTINGS = [
  ['', 'None', 'bilinear', 'zeros'],
  ['', 'None', 'nearest', 'zeros'],
  ['', 'None', 'bicubic', 'zeros'],
  ['', 'None', 'bilinear', 'reflection'],
  ['?fused=0', 'None', 'bilinear', 'zeros'],
  ['?fused=0', 'None', 'bicubic', 'zeros'],
  ['', 'Swirl', 'bilinear', 'zeros'],
];

const server = await startDemoServer({ port: 0 });
const profile = mkdtempSync(join(tmpdir(), 'gridsample-measure-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1440, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  let page = null;
  let query = null;
  console.log(`Chromium headless (${CHROMIUM}), load average ${loadavg().map((v) => v.toFixed(1)).join(' ')}`);
  console.log('| workload (512×512 picture) | gridsample ms/frame | plain JS ms/frame | speed-up | max abs diff |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [q, flow, mode, padding] of SETTINGS) {
    if (q !== query) {
      if (page) await page.close();
      page = await context.newPage();
      await page.goto(`${server.url}${q}`);
      await page.waitForFunction(() => window.__demo?.ready && window.__demo.frames > 0, null, { timeout: 30000 });
      query = q;
    }
    for (const name of [flow, mode, padding]) await page.getByRole('button', { name, exact: true }).click();
    await page.evaluate(() => window.__demo.settled());
    await page.evaluate(() => { window.__demo.lastBenchmark = null; });
    await page.locator('#benchmark').click();
    await page.waitForFunction(() => window.__demo.lastBenchmark, null, { timeout: 120000 });
    const b = await page.evaluate(() => window.__demo.lastBenchmark);
    const backend = await page.evaluate(() => window.__demo.backend);
    console.log(`| ${b.workload} (${backend}) | ${b.oursMs.toFixed(2)} | ${b.jsMs.toFixed(1)} | ${(b.jsMs / b.oursMs).toFixed(1)}× | ${b.maxDiff === 0 || b.maxDiff >= 0.1 ? +b.maxDiff.toFixed(2) : b.maxDiff.toExponential(1)} |`);
  }
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
