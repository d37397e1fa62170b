// Loads a package that only one entry point needs and that the package leaves to the user (an optional peer dependency: `npm install gridsample` does not bring it), with a one-line error naming the package to install when it is missing.

/**
 * `load()`, which is `() => import('NAME')` with the name written out (bundlers and
 * tests/js/import_graph.test.mjs see the specifier). When the package is not installed, throws
 * an Error named MissingPackageError: `${purpose} needs the npm package ${name}: npm install ${name}`.
 */
export async function importOptional(name, purpose, load) {
  try {
    return await load();
  } catch (e) {
    throw isMissing(e, name) ? missingPackage(name, purpose, e) : e;
  }
}

/** The same for a CommonJS package loaded synchronously: `require(name)` with a Node `require`. */
export function requireOptional(require, name, purpose) {
  try {
    return require(name);
  } catch (e) {
    throw isMissing(e, name) ? missingPackage(name, purpose, e) : e;
  }
}

function missingPackage(name, purpose, cause) {
  const error = new Error(`${purpose} needs the npm package ${name}: npm install ${name}`, { cause });
  error.name = 'MissingPackageError';
  return error;
}

// Node's import says "Cannot find package 'NAME' imported from ..." (ERR_MODULE_NOT_FOUND), its
// require "Cannot find module 'NAME'" (MODULE_NOT_FOUND); browsers throw a TypeError naming the
// bare specifier that no import map entry resolves. Only the package itself counts: one of its
// own imports failing is another error.
function isMissing(e, name) {
  const message = String(e?.message ?? '');
  if (e?.code === 'ERR_MODULE_NOT_FOUND') return message.startsWith(`Cannot find package '${name}'`);
  if (e?.code === 'MODULE_NOT_FOUND') return message.startsWith(`Cannot find module '${name}'`);
  return e instanceof TypeError && /specifier/i.test(message) && (message.includes(`"${name}"`) || message.includes(`“${name}”`));
}
