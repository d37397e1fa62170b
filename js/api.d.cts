// TypeScript declarations of the gridsample API, the one copy that index.d.ts (ES module entries) and index.d.cts (CommonJS entry) re-export.
//
// Why a CommonJS declaration file: both entry declarations must be able to import it. An ES
// module may import a CommonJS one, but a CommonJS file importing an ES module needs a
// `resolution-mode` attribute under `module: node16` (TS1541 otherwise), which TypeScript
// understands only from 5.3. This file is read as CommonJS for its `.d.cts` extension alone
// (the package is `"type": "module"`); no api.cjs exists, it is a declaration file only.
// Nothing here depends on the module format: exports named in it are the named exports of
// both entries (index.d.cts leaves out the HeapTensor class, which index.cjs does not export).
//
// The declarations live in one file per topic, re-exported here whole: tensor_api.d.cts
// (dtypes, tensors, GridSample / AffineGrid options, HeapTensor), image_api.d.cts (images and
// the warps' arguments), load_api.d.cts (the loaded module's interface and load()),
// pool_api.d.cts (createPool and the Pool) and prepared_api.d.cts (prepared calls). They import
// each other's types from their .cjs names, as this file's importers do.

export * from './tensor_api.cjs';
export * from './image_api.cjs';
export * from './load_api.cjs';
export * from './pool_api.cjs';
export * from './prepared_api.cjs';
