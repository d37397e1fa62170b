// TypeScript declarations of gridsample/core's ES module entries (core_node.mjs, core_browser.mjs): all of core_api.d.cts.
export * from './core_api.cjs';
