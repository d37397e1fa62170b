// TypeScript declarations of gridsample's ES module entries (node.mjs, browser.mjs): all of api.d.cts.
export * from './api.cjs';
