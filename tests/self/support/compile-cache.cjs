// A compile cache for the CommonJS modules of this checkout, preloaded (`--require`) into npm test's child runs only
// (child-run.ts, childEnv): never into the suite's own runs, nor into npm run bench's, which measure what users run.
//
// npm test starts about 180 Playwright runners and workers, and each compiles what it loads before it does anything:
// Playwright's bundles (about 10 MB of JavaScript), fast-check, ajv, and the suite's own modules as Playwright's
// TypeScript transform hands them over. With V8's code cache of them kept on disk, a child run's runner and worker
// together took 1.31 s of CPU instead of 1.39 s with Playwright's bundles alone cached (medians of 5, alternating);
// the bundles alone saved about 0.15 s a process (README, "Benchmark"). Modules from outside the checkout are compiled
// as Node does: npm's own, under npx, exited at once with code 1 when they went through the cache.
//
// Node 22.1 and later have a public API for it, module.enableCompileCache(), which this file then calls (for every
// module). Node 20 has none, and this file uses Node internals there, as the code-cache packages do:
// Module.prototype._compile, replaced; Module.wrap and the parts of a module's require function; and
// vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER (experimental), so that import() in a module works as without the
// cache. Node 20 gets no new features, so they stay as they are; tests/self/compile-cache.spec.ts fails loudly if not.
// A module's cache is written as its process exits, so that it holds the functions that process ran, not only the top
// level; a cache V8 refuses (another Node, other flags) is compiled over and written again. A module is keyed by its
// path and its text: a changed source is a new entry, which replaces the entry of its path's earlier text, so that
// editing the suite does not grow the cache.
'use strict';

const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { basename, dirname, join, resolve, sep } = require('node:path');
const vm = require('node:vm');

/** This checkout: its modules are cached, and no other. */
const CHECKOUT = resolve(__dirname, '../../..') + sep;

/** Where the cache is kept: beside the schemas' compiled validators, in a folder of its own. */
const CACHE_DIR = process.env.SELF_TEST_COMPILE_CACHE_DIR || join(CHECKOUT, 'node_modules/.cache/rsf-compile-cache');

/** For compile-cache.spec.ts: what this process read from the cache, and what it compiled. */
const stats = { read: 0, compiled: 0 };

/** A module's entry: `<its path's hash>-<its text's hash>`. */
function entryName(filename, content) {
  const sha1 = (text) => createHash('sha1').update(text).digest('hex');
  return `${sha1(filename).slice(0, 16)}-${sha1(content)}`;
}

/** Removes the entries of `written`'s paths other than `written`: the code of a module's earlier text. */
function removeReplaced(written) {
  const pathOf = (name) => name.slice(0, name.indexOf('-') + 1);
  const paths = new Set(written.map(pathOf));
  for (const name of readdirSync(CACHE_DIR)) {
    if (!paths.has(pathOf(name)) || written.includes(name) || name.endsWith('.tmp')) continue;
    rmSync(join(CACHE_DIR, name), { force: true });
  }
}

function useInternals() {
  const compile = Module.prototype._compile;
  /** Scripts compiled without a cache V8 accepted, and the file each one's cache goes to. */
  const toWrite = [];

  /** The require function Node gives a module (makeRequireFunction in lib/internal/modules/helpers.js). */
  function requireFor(mod) {
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return require;
  }

  Module.prototype._compile = function compileWithCache(content, filename, format, ...rest) {
    // An ES module (format 'module'), or a module from outside this checkout: as Node does it.
    if (format === 'module' || !filename.startsWith(CHECKOUT))
      return compile.call(this, content, filename, format, ...rest);
    const file = join(CACHE_DIR, entryName(filename, content));
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      // Not cached yet.
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData,
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      });
    } catch {
      return compile.call(this, content, filename, format, ...rest); // whatever it is, Node's own compile says it
    }
    if (cachedData && !script.cachedDataRejected) stats.read++;
    else {
      stats.compiled++;
      toWrite.push({ script, file });
    }
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    const written = [];
    for (const { script, file } of toWrite) {
      try {
        mkdirSync(CACHE_DIR, { recursive: true });
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, file); // whole or not at all, for the processes reading it
        written.push(basename(file));
      } catch {
        // A cache that cannot be written: the next process compiles, as without it.
      }
    }
    try {
      if (written.length > 0) removeReplaced(written);
    } catch {
      // Left for the next process that writes an entry of the same module.
    }
  });
}

if (typeof Module.enableCompileCache === 'function') Module.enableCompileCache(CACHE_DIR);
else useInternals();

if (process.env.SELF_TEST_COMPILE_CACHE_REPORT)
  process.once('exit', () => process.stderr.write(`compile-cache: ${JSON.stringify(stats)}\n`));
