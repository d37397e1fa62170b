// CommonJS entry point of gridsample/core for Node: load() is asynchronous anyway, so it imports the ES module (core_node.mjs).
'use strict';

/**
 * Loads gridsample's core (GridSample and AffineGrid) and resolves to its API object (see
 * core_api.d.cts).
 * @param {import('./core.cjs').LoadOptions} [options]
 */
function load(options) {
  return import('./core_node.mjs').then((m) => m.load(options));
}

// index.cjs's (one copy for CommonJS: it cannot import the ES modules synchronously).
const { simdSupported, DTYPE_NAMES } = require('./index.cjs');

module.exports = { load, simdSupported, DTYPE_NAMES };
