// A compile cache for Playwright's bundles, preloaded (`--require`) into npm test's child runs only (child-run.ts,
// childEnv): never into the suite's own runs, nor into npm run bench's, which measure what users run.
//
// npm test starts about 180 Playwright runners and workers, and each compiles Playwright's bundles (about 10 MB of
// JavaScript) before it does anything: about 0.15 s of CPU each, on the 2 cores npm test is bound by. With V8's code
// cache of them kept on disk, npm test took 118 and 123 s, against 128 and 131 s without (alternating; README,
// "Benchmark").
//
// Node 22.1 and later have a public API for it, module.enableCompileCache(), which this file then calls. Node 20 has
// none, and this file uses Node internals there, as the code-cache packages do: Module.prototype._compile, replaced
// for those bundles only; Module.wrap and the parts of a module's require function; and
// vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER (experimental), so that import() in a bundle works as without the
// cache. Node 20 gets no new features, so they stay as they are; tests/self/compile-cache.spec.ts fails loudly if not.
// A bundle's cache is written as its process exits, so that it holds the functions that process ran, not only the top
// level; a cache V8 refuses (another Node, other flags) is compiled over and written again.
'use strict';

const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

/** Where the cache is kept: beside the schemas' compiled validators, in a folder of its own. */
const CACHE_DIR =
  process.env.SELF_TEST_COMPILE_CACHE_DIR || join(__dirname, '../../../node_modules/.cache/rsf-compile-cache');
/** Playwright's bundles: its large files, the ones worth a cache. */
const BUNDLE = /[\\/]node_modules[\\/](playwright|playwright-core)[\\/]lib[\\/]/;
const BUNDLE_MIN_CHARS = 200_000;

/** For compile-cache.spec.ts: what this process read from the cache, and what it compiled. */
const stats = { read: 0, compiled: 0 };

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
    // An ES module (format 'module'), or anything but a bundle: as Node does it.
    if (format === 'module' || !(BUNDLE.test(filename) && content.length >= BUNDLE_MIN_CHARS))
      return compile.call(this, content, filename, format, ...rest);
    const file = join(CACHE_DIR, createHash('sha1').update(filename).update(content).digest('hex'));
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
    for (const { script, file } of toWrite) {
      try {
        mkdirSync(CACHE_DIR, { recursive: true });
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, file); // whole or not at all, for the processes reading it
      } catch {
        // A cache that cannot be written: the next process compiles, as without it.
      }
    }
  });
}

if (typeof Module.enableCompileCache === 'function') Module.enableCompileCache(CACHE_DIR);
else useInternals();

if (process.env.SELF_TEST_COMPILE_CACHE_REPORT)
  process.once('exit', () => process.stderr.write(`compile-cache: ${JSON.stringify(stats)}\n`));
