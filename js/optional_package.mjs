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
    if (!isMissing(e, name)) throw e;
    const error = new Error(`${purpose} needs the npm package ${name}: npm install ${name}`, { cause: e });
    error.name = 'MissingPackageError';
    throw error;
  }
}

// Node says "Cannot find package 'NAME' imported from ..." (ERR_MODULE_NOT_FOUND); browsers throw
// a TypeError naming the bare specifier that no import map entry resolves. Only the package
// itself counts: one of its own imports failing is another error.
function isMissing(e, name) {
  const message = String(e?.message ?? '');
  if (e?.code === 'ERR_MODULE_NOT_FOUND') return message.startsWith(`Cannot find package '${name}'`);
  return e instanceof TypeError && /specifier/i.test(message) && (message.includes(`"${name}"`) || message.includes(`“${name}”`));
}
