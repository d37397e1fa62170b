#!/usr/bin/env node
// Serves the demo on 127.0.0.1 (`make demo`): web/demo/ and the npm package folder js/, with the right MIME types; prints the URL, honours PORT.
//
// The page imports the package's browser entry (../../js/browser.mjs), which fetches
// dist/*.wasm next to itself, exactly as an unbundled app does from node_modules. Only those
// two folders are served: nothing else of the repository is reachable. No dependencies.
//
// Every response carries COOP/COEP, so the pages are cross-origin isolated and get wasm
// threads; a page asked for with ?isolated=0 comes without them, to show the single-threaded
// fallback that most sites get.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVED = ['web/demo/', 'js/'];
const ENTRY = '/web/demo/';

// Cross-origin isolation (SharedArrayBuffer, wasm threads): everything served is same-origin.
const ISOLATION = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
};

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.cts': 'text/plain; charset=utf-8',
};

/** The file a request path maps to, or null when it is outside the served folders. */
function resolveFile(pathname) {
  let path;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  const file = normalize(join(ROOT, path.endsWith('/') ? `${path}index.html` : path));
  const inside = SERVED.some((dir) => file.startsWith(join(ROOT, dir.replaceAll('/', sep))));
  if (!inside) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/**
 * Starts the server; resolves to {url, port, requests, close()}. `port` 0 picks a free one.
 * Binds to the loopback interface only.
 */
export function startDemoServer({ port = 8080, host = '127.0.0.1' } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url, 'http://localhost');
    requests.push(pathname);
    if (pathname === '/' || pathname === '/web/demo') {
      res.writeHead(302, { location: ENTRY });
      res.end();
      return;
    }
    const file = req.method === 'GET' || req.method === 'HEAD' ? resolveFile(pathname) : null;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`not found: ${pathname}\n`);
      return;
    }
    const isolated = searchParams.get('isolated') !== '0';
    res.writeHead(200, {
      'content-type': MIME[extname(file)] || 'application/octet-stream',
      'content-length': statSync(file).size,
      // A rebuilt .wasm must never be served stale while you work on it.
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      ...(isolated ? ISOLATION : {}),
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        url: `http://${host}:${actual}${ENTRY}`,
        port: actual,
        requests,
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
      });
    });
  });
}

async function main() {
  const missing = ['simd', 'scalar'].flatMap((v) => ['wasm', 'mjs'].map((e) => `js/dist/gridsample-${v}.${e}`))
    .filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length) {
    console.error(`demo: ${missing.join(', ')} missing; build the package first: make wasm (or just: make demo)`);
    process.exit(1);
  }
  const text = process.env.PORT ?? '8080';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    console.error(`demo: PORT must be a port number (0-65535), got "${text}"`);
    process.exit(2);
  }
  try {
    const { url } = await startDemoServer({ port });
    console.log(`gridsample demo: ${url}`);
    console.log(`single-threaded fallback (not cross-origin isolated): ${url}?isolated=0`);
    console.log('(serving web/demo and js/ on 127.0.0.1 only; Ctrl+C stops; PORT=... picks another port)');
  } catch (e) {
    if (e.code === 'EADDRINUSE') console.error(`demo: port ${port} is in use; pick another, e.g. make demo PORT=8090`);
    else console.error(`demo: cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) main();
