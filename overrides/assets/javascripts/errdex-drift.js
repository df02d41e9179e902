/* errdex drift answers, the paste page's copy of generator/bundle/drift.py (loaded by errdex-match-worker.js with
 * importScripts): for a line where Python says the installed release lacks a name (`cannot import name`, `No module
 * named`, `has no attribute`, `got an unexpected keyword argument`, an unknown model type or architecture,
 * `unrecognized arguments`, clap's `unexpected argument` in a log that names TGI), the releases that have the name and
 * the command that installs one that fits (or, for TGI, the releases whose image to run).
 *
 * What answers are made of besides the names (the shapes, the phrases in both languages, the patterns that read a
 * log's packages, remote code and installed release, each project's releases) is the API's drift/index.json
 * (generator/api/driftfiles.py writes it from generator/match/drift.py); the symbol indexes are read from its
 * shards, filed by the name a line asks about (`m:<module>`, `c:<Class>`, `f:<function>`, `n:<name>`, shard
 * crc32(key) % shards), and its registry files. Nothing is fetched for a text that holds no shape's literal. A set
 * of releases is a BigInt bitmask over a project's releases, as in generator/catalog/symbols.py. The answers are
 * the CLI's, field for field: tests/test_drift_browser.py runs both on the same lines and indexes. Every pattern of
 * the drift data runs through the worker's `execute`, as the records' and the catalog's do. Files are read with
 * errdex-match-catalog.js's `fetchData` (loaded first), which inflates the gzip-stored shards and registries.
 */
"use strict";

var drift = null; // {index, shard, registry: URLs ({key}, {project}); meta: Promise of the index document}
var driftDocs = new Map(); // URL -> Promise of a document (null when it cannot be had)

function driftSetup(indexUrl, shardUrl, registryUrl) {
  drift = { index: indexUrl, shard: shardUrl, registry: registryUrl, meta: null };
}

function driftFetch(url) {
  if (!driftDocs.has(url)) {
    driftDocs.set(url, fetchData(url).catch(function () { return null; })); // errdex-match-catalog.js
  }
  return driftDocs.get(url);
}

// A pattern of the drift data, in the form the worker's `execute` runs (it compiles it, keeps to the request's
// budget and skip list, and tells the page which pattern runs): Python's named groups (?P<name>...) written as
// JavaScript writes them.
function pyPattern(id, source, flags) {
  return { id: "drift:" + id, source: source.replace(/\(\?P</g, "(?<"), flags: flags, re: null };
}

function driftMeta() {
  if (!drift) return Promise.resolve(null);
  if (!drift.meta) {
    drift.meta = driftFetch(drift.index).then(function (m) {
      if (!m || m.format !== 1 || !Array.isArray(m.shapes)) return null;
      m.shapes.forEach(function (s, i) {
        s.p = pyPattern("shape:" + i, s.regex, "");
        s.afterP = s.after ? pyPattern("after:" + i, s.after, "") : null;
        s.requiresP = s.requires ? pyPattern("requires:" + i, s.requires, "") : null;
      });
      m.packageP = pyPattern("package", m.package_path, "g");
      m.remoteP = pyPattern("remote", m.remote_code, "");
      m.versionP = {}; // project -> its release pattern, made when first needed
      Object.keys(m.projects).forEach(function (p) {
        var info = m.projects[p];
        info.all = (1n << BigInt(info.releases.length)) - 1n;
      });
      return m;
    });
  }
  return drift.meta;
}

// -- the shapes (generator/match/drift.asks) -------------------------------------------------------------------

function driftKeys(g) {
  if (g.auto) return [g.auto + "." + g.config];
  if (g.key) return [g.key];
  if (g.keys) return Array.from(g.keys.matchAll(/'([^']+)'/g), function (m) { return m[1]; });
  if (g.flags) return g.flags.split(/\s+/).filter(function (f) { return f.indexOf("--") === 0; }).map(function (f) { return f.split("=")[0]; });
  return [];
}

function driftAsks(text, meta) { // a shape's `requires` must match somewhere in the text (looked for once, as its literal)
  var live = meta.shapes.filter(function (s) {
    return text.indexOf(s.literal) >= 0 && (!s.requiresP || execute(s.requiresP, text, 0) !== null);
  });
  if (!live.length) return [];
  var lines = text.split("\n"), out = [];
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i].slice(0, meta.max_line);
    for (var k = 0; k < live.length; k++) {
      var s = live[k];
      if (line.indexOf(s.literal) < 0) continue;
      var m = execute(s.p, line, 0);
      if (!m) continue;
      if (s.afterP && !lines.slice(Math.max(0, i - meta.context_lines), i).some(function (prev) { return execute(s.afterP, prev.slice(0, meta.max_line), 0) !== null; })) continue;
      var g = {};
      Object.keys(m.groups || {}).forEach(function (name) { if (m.groups[name]) g[name] = m.groups[name]; });
      out.push({ shape: s.shape, line: i + 1, module: g.module || "", name: g.name || g.attr || g.kwarg || "", cls: g.cls || "",
        func: g.func || "", registry: s.registry || "", keys: driftKeys(g), project: s.project || "", text: m[0] });
      break;
    }
  }
  return out;
}

// -- the index, read from the shards (generator/catalog/symbols.SymbolIndex) -----------------------------------

// A data object's own value under a key a pasted line chose ("constructor", "__proto__" are names too), never an
// inherited one.
function own(obj, key) { return obj && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined; }

function parseRanges(text, parent) {
  if (text === "") return parent;
  var mask = 0n;
  text.split(",").forEach(function (run) {
    var parts = run.split("-"), a = BigInt(parts[0]), b = BigInt(parts.length > 1 ? parts[1] : parts[0]);
    mask |= ((1n << (b - a + 1n)) - 1n) << a;
  });
  return mask;
}

function runsOf(mask) {
  var out = [];
  for (var i = 0; mask >> BigInt(i); i++) {
    if (!((mask >> BigInt(i)) & 1n)) continue;
    if (out.length && out[out.length - 1][1] === i - 1) out[out.length - 1][1] = i;
    else out.push([i, i]);
  }
  return out;
}

function Index(meta, project) {
  this.meta = meta;
  this.project = project;
  var info = meta.projects[project];
  this.pip = info.pip;
  this.packages = info.packages;
  this.programs = info.programs;
  this.releases = info.releases;
  this.all = info.all;
}

Index.prototype.items = function (key) { // this project's items under a shard key
  var project = this.project, n = crc32(key) % this.meta.shards;
  return driftFetch(drift.shard.split("{key}").join(String(n))).then(function (doc) {
    return ((doc && doc[key]) || []).filter(function (item) { return item[0] === project; });
  });
};

Index.prototype.moduleLine = function (name) {
  return this.items("m:" + name).then(function (items) { return items.length ? items[0][1] : null; });
};

Index.prototype.module = function (name) {
  var all = this.all;
  return this.moduleLine(name).then(function (node) { return node ? parseRanges(node.in, all) : 0n; });
};

Index.prototype.name = async function (module, name, depth) {
  depth = depth || 0;
  var node = await this.moduleLine(module);
  var found = await this.module(module + "." + name);
  if (node === null || depth > this.meta.max_depth) return found;
  var mine = parseRanges(node.in, this.all);
  ["names", "classes", "functions"].forEach(function (part) {
    var entry = own(node[part], name);
    if (entry !== undefined) found |= parseRanges(entry, mine);
  });
  var stars = Object.keys(node.star || {});
  var self = this;
  var got = await Promise.all(stars.map(function (star) { return self.name(star, name, depth + 1); }));
  stars.forEach(function (star, i) { found |= got[i] & parseRanges(node.star[star], mine); });
  return found;
};

Index.prototype.importableFrom = function (name) {
  return this.items("n:" + name).then(function (items) { return items.length ? items[0][1] : []; });
};

Index.prototype.classHomes = function (cls) { // [[module, entry, its releases]] in the index's order
  var all = this.all;
  return this.items("c:" + cls).then(function (items) {
    return items.map(function (it) { return [it[1], it[2], parseRanges(it[2].in || "", parseRanges(it[3], all))]; });
  });
};

Index.prototype.classIn = function (module, cls) {
  return this.classHomes(cls).then(function (homes) {
    var found = homes.filter(function (h) { return h[0] === module; })[0];
    return found ? [found[1], found[2]] : null;
  });
};

Index.prototype.resolve = async function (dotted) {
  var cut = dotted.lastIndexOf("."), module = dotted.slice(0, Math.max(cut, 0)), cls = dotted.slice(cut + 1);
  if (!this.packages.some(function (p) { return dotted === p || dotted.indexOf(p + ".") === 0; })) return [];
  if (await this.classIn(module, cls)) return [[module, cls]];
  return (await this.classHomes(cls)).map(function (h) { return [h[0], cls]; });
};

Index.prototype.member = async function (module, cls, attr, depth, seen) {
  depth = depth || 0;
  seen = seen || [];
  var found = await this.classIn(module, cls);
  if (found === null || depth > this.meta.max_depth || seen.indexOf(module + "\u0000" + cls) >= 0) return 0n;
  var entry = found[0], at = found[1], mask = 0n;
  if (own(entry.attrs, attr) !== undefined) mask |= parseRanges(entry.attrs[attr], at);
  if (own(entry.methods, attr) !== undefined) mask |= parseRanges(entry.methods[attr].in || "", at);
  var bases = Object.keys(entry.bases || {});
  for (var i = 0; i < bases.length; i++) {
    var edge = parseRanges(entry.bases[bases[i]], at), targets = await this.resolve(bases[i]);
    for (var j = 0; j < targets.length; j++) {
      mask |= (await this.member(targets[j][0], targets[j][1], attr, depth + 1, seen.concat([module + "\u0000" + cls]))) & edge;
    }
  }
  return mask;
};

Index.prototype.methodParams = async function (module, cls, method, depth, seen) {
  depth = depth || 0;
  seen = seen || [];
  var found = await this.classIn(module, cls);
  if (found === null || depth > this.meta.max_depth || seen.indexOf(module + "\u0000" + cls) >= 0) return [];
  var entry = found[0], at = found[1], out = [];
  var m = own(entry.methods, method);
  if (m) {
    var has = parseRanges(m.in || "", at), params = Object.create(null);
    Object.keys(m.params || {}).forEach(function (p) { params[p] = parseRanges(m.params[p], has); });
    out.push([has, params]);
  }
  var bases = Object.keys(entry.bases || {});
  for (var i = 0; i < bases.length; i++) {
    var edge = parseRanges(entry.bases[bases[i]], at), targets = await this.resolve(bases[i]);
    for (var j = 0; j < targets.length; j++) {
      var more = await this.methodParams(targets[j][0], targets[j][1], method, depth + 1, seen.concat([module + "\u0000" + cls]));
      more.forEach(function (pair) {
        var ps = Object.create(null);
        Object.keys(pair[1]).forEach(function (p) { ps[p] = pair[1][p] & edge; });
        out.push([pair[0] & edge, ps]);
      });
    }
  }
  return out;
};

Index.prototype.functionHomes = function (fn) { // [[module, entry, its releases]]
  var all = this.all;
  return this.items("f:" + fn).then(function (items) {
    return items.map(function (it) { return [it[1], it[2], parseRanges(it[2].in || "", parseRanges(it[3], all))]; });
  });
};

Index.prototype.registryKeys = function (name) { // {key: ranges}, or null when the project keeps no such registry
  if (this.meta.projects[this.project].registries.indexOf(name) < 0) return Promise.resolve(null);
  return driftFetch(drift.registry.split("{project}").join(this.project).split("{key}").join(name));
};

Index.prototype.registry = function (name, key) { // BigInt, or null when the project keeps no such registry
  var all = this.all;
  return this.registryKeys(name).then(function (keys) {
    if (!keys) return null;
    return Object.prototype.hasOwnProperty.call(keys, key) ? parseRanges(keys[key], all) : 0n;
  });
};

// -- the answers (generator/bundle/drift) -----------------------------------------------------------------------

function driftProjects(meta, hints) { // those with a package among `hints` first, then by name
  function named(p) { return meta.projects[p].packages.some(function (x) { return hints.has(x); }); }
  return Object.keys(meta.projects).sort(function (a, b) {
    return (named(b) - named(a)) || (a < b ? -1 : a > b ? 1 : 0);
  });
}

function projectOf(meta, dotted) {
  var head = dotted.split(".")[0];
  var p = driftProjects(meta, new Set()).filter(function (q) { return meta.projects[q].packages.indexOf(head) >= 0; })[0];
  return p ? new Index(meta, p) : null;
}

async function searched(meta, hints, find) {
  var all = driftProjects(meta, hints);
  var named = all.filter(function (p) { return meta.projects[p].packages.some(function (x) { return hints.has(x); }); });
  var found = [];
  for (var i = 0; i < named.length; i++) found = found.concat(await find(new Index(meta, named[i])));
  if (found.length) return found;
  for (var j = 0; j < all.length; j++) { // a project without packages (its index holds registries only) is not searched
    if (named.indexOf(all[j]) < 0 && meta.projects[all[j]].packages.length) found = found.concat(await find(new Index(meta, all[j])));
  }
  return found;
}

function preferred(found) { // those some release has first, in a stable order
  return found.map(function (t, i) { return [t.has === 0n ? 1 : 0, i, t]; })
    .sort(function (a, b) { return (a[0] - b[0]) || (a[1] - b[1]); }).map(function (x) { return x[2]; });
}

function target(index, what, has, kind, elsewhere, more) {
  var t = { index: index, what: what, has: has, kind: kind, elsewhere: elsewhere || [], phrase: "elsewhere", name: "", absent: "" };
  return Object.assign(t, more || {});
}

function registryLabel(meta, registry, key) { // generator/match/drift.label
  var values = { key: key };
  key.split(".").forEach(function (part, i) { values[i] = part; });
  var conf = own(meta.registries, registry);
  return ((conf && conf.label) || "{key}").replace(/\{(\w+)\}/g, function (_, k) { return String(own(values, k)); });
}

async function instead(meta, ix, registry, key, has) { // generator/bundle/drift._instead
  var newest = 1n << BigInt(ix.releases.length - 1), among = own(meta.registries, registry).among || "";
  var cut = key.lastIndexOf("."), head = key.slice(0, cut), tail = key.slice(cut + 1);
  if ((has & newest) || head.indexOf(among) !== 0) return [];
  var keys = (await ix.registryKeys(registry)) || {}, found = [];
  Object.keys(keys).forEach(function (k) {
    if (k !== key && k.indexOf(among) === 0 && k.slice(-(tail.length + 1)) === "." + tail && (parseRanges(keys[k], ix.all) & newest)) {
      found.push(k.slice(0, k.lastIndexOf(".")));
    }
  });
  return found.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }).slice(0, meta.max_elsewhere);
}

async function driftTargets(meta, ask, hints) {
  if (ask.shape === "import" || ask.shape === "module" || (ask.shape === "attribute" && ask.module)) {
    var index = projectOf(meta, ask.module);
    if (!index) return [];
    if (ask.shape === "module") return [target(index, ask.module, await index.module(ask.module), "module")];
    var has = await index.name(ask.module, ask.name);
    var newest = 1n << BigInt(index.releases.length - 1), elsewhere = [];
    if (!(has & newest) && ask.shape === "import") elsewhere = (await index.importableFrom(ask.name)).slice(0, meta.max_elsewhere);
    return [target(index, ask.module + "." + ask.name, has, "name", elsewhere.filter(function (m) { return m !== ask.module; }))];
  }
  if (ask.shape === "attribute") {
    var cls = ask.cls.split(".").pop();
    var members = async function (ix) {
      var homes = (await ix.classHomes(cls)).map(function (h) { return h[0]; });
      homes = homes.filter(function (m, i) { return homes.indexOf(m) === i; }).sort();
      var out = [];
      for (var i = 0; i < homes.length; i++) out.push(target(ix, homes[i] + "." + cls + "." + ask.name, await ix.member(homes[i], cls, ask.name), "member"));
      return out;
    };
    var scope = ask.cls.indexOf(".") >= 0 ? projectOf(meta, ask.cls) : null;
    return preferred(scope ? await members(scope) : await searched(meta, hints, members));
  }
  if (ask.shape === "kwarg") {
    var cut = ask.func.lastIndexOf("."), owner = ask.func.slice(0, Math.max(cut, 0)), fn = ask.func.slice(cut + 1);
    if (!owner && fn === "__init__") return [];
    var parameters = async function (ix) {
      var out = [];
      if (owner) {
        var c = owner.split(".").pop(), homes = await ix.classHomes(c);
        for (var i = 0; i < homes.length; i++) {
          var got = 0n, list = await ix.methodParams(homes[i][0], c, fn);
          list.forEach(function (pair) { got |= (pair[1][ask.name] || 0n) | (pair[1]["**"] || 0n); });
          out.push(target(ix, homes[i][0] + "." + c + "." + fn + "(" + ask.name + "=...)", got, "parameter"));
        }
      } else {
        var fns = await ix.functionHomes(fn);
        fns.forEach(function (h) {
          var at = h[2], params = Object.create(null);
          Object.keys(h[1].params || {}).forEach(function (p) { params[p] = parseRanges(h[1].params[p], at); });
          out.push(target(ix, h[0] + "." + fn + "(" + ask.name + "=...)", (params[ask.name] || 0n) | (params["**"] || 0n), "parameter"));
        });
      }
      return out;
    };
    return preferred(await searched(meta, hints, parameters));
  }
  if (ask.shape === "registry" || ask.shape === "flag") {
    var having = driftProjects(meta, hints).filter(function (p) { return meta.projects[p].registries.indexOf(ask.registry) >= 0; });
    if (!ask.project) { // a project a shape names (TGI's clap words) answers its own shapes' lines only
      var owned = meta.shapes.filter(function (s) { return s.registry === ask.registry && s.project; }).map(function (s) { return s.project; });
      having = having.filter(function (p) { return owned.indexOf(p) < 0; });
    }
    var named = having.filter(function (p) { return meta.projects[p].packages.some(function (x) { return hints.has(x); }); });
    if (meta.projects[ask.project] && !named.length) having = [ask.project];
    else if (named.length) having = named;
    var out = [], conf = own(meta.registries, ask.registry) || {};
    var absent = conf.remote_absent && execute(meta.remoteP, ask.text, 0) !== null ? conf.remote_absent : (conf.absent || "");
    for (var i = 0; i < having.length; i++) {
      var ix = new Index(meta, having[i]);
      for (var k = 0; k < ask.keys.length; k++) {
        var key = ask.keys[k], got = await ix.registry(ask.registry, key);
        if (got === null) continue;
        var others = conf.elsewhere ? await instead(meta, ix, ask.registry, key, got) : [];
        out.push(target(ix, registryLabel(meta, ask.registry, key), got, "key", others,
          { phrase: conf.elsewhere || "elsewhere", name: key.split(".").pop(), absent: others.length ? "" : absent }));
      }
      if (out.length && ask.shape === "registry") break;
    }
    return ask.shape === "flag" ? preferred(out) : out;
  }
  return [];
}

function say(meta, key, values) {
  var pair = meta.phrases[key];
  function fill(text) { return text.replace(/\{(\w+)\}/g, function (_, k) { return String(values[k]); }); }
  return { en: fill(pair[0]), zh: fill(pair[1]) };
}

function reEscape(text) { return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }

function installedRelease(meta, index, text, wanted) {
  var names = [index.project, index.pip].concat(index.packages, index.programs).filter(function (n) { return n; });
  var found = null;
  for (var i = 0; i < names.length && found === null; i++) if (Object.prototype.hasOwnProperty.call(wanted, names[i])) found = wanted[names[i]];
  if (found === null) {
    if (!meta.versionP[index.project]) {
      var alts = names.filter(function (n, i) { return names.indexOf(n) === i; }).map(reEscape).sort(function (a, b) { return b.length - a.length; });
      meta.versionP[index.project] = pyPattern("version:" + index.project, meta.version_line.replace("{names}", alts.join("|")), "mi");
    }
    var m = execute(meta.versionP[index.project], text, 0);
    found = m ? m.groups.v : null;
  }
  if (found !== null && index.releases.indexOf(found) < 0 && index.releases.indexOf("v" + found) >= 0) return "v" + found;
  return found;
}

function joinZh(parts) {
  var out = "";
  parts.forEach(function (part) { out += (!out || /[。）]$/.test(out)) ? part : " " + part; });
  return out;
}

function spansText(releases, spans) {
  return spans.map(function (s) { return s[0] === s[1] ? releases[s[0]] : releases[s[0]] + "\u2013" + releases[s[1]]; }).join(", ");
}

function describe(meta, t, release, remote) {
  var index = t.index, releases = index.releases, first = releases[0], last = releases[releases.length - 1];
  var pip = index.pip || index.project; // the name the sentences give it
  var spans = runsOf(t.has);
  var out = { project: index.project, symbol: t.what, kind: t.kind, searched: { from: first, to: last, releases: releases.length },
    has: spans.map(function (s) { return { from: releases[s[0]], to: releases[s[1]] }; }) };
  var text = [];
  if (!spans.length) {
    out.verdict = "absent";
    text.push(say(meta, "none", { pip: pip, first: first, last: last, what: t.what }));
    if (t.absent) text.push(say(meta, t.absent, { name: t.name }));
  } else {
    var a = spans[0][0], b = spans[spans.length - 1][1], spec;
    text.push(a > 0 ? say(meta, "added", { what: t.what, pip: pip, added: releases[a], before: releases[a - 1] })
      : say(meta, "oldest", { what: t.what, pip: pip, first: first }));
    if (spans.length > 1) {
      text.push(say(meta, "gaps", { spans: spansText(releases, spans) }));
    }
    var start = spans[spans.length - 1][0];
    if (b < releases.length - 1) {
      text.push(say(meta, "removed", { removed: releases[b + 1], last_has: releases[b] }));
      spec = start > 0 ? ">=" + releases[start] + ",<" + releases[b + 1] : "<" + releases[b + 1];
      out.verdict = "removed";
    } else {
      text.push(say(meta, "kept", { since: releases[start], last: last }));
      spec = start > 0 ? ">=" + releases[start] : "";
      out.verdict = a > 0 ? "added" : "present";
    }
    if (index.pip) {
      var command = spec ? "pip install '" + index.pip + spec + "'" : "pip install -U " + index.pip;
      out.install = command;
      text.push(say(meta, "install", { command: command }));
      if (remote) text.push(say(meta, "remote", { pip: pip, command: command }));
    } else {
      text.push(say(meta, "image", { pip: pip, spans: spansText(releases, spans) }));
    }
  }
  if (t.elsewhere.length) {
    out.elsewhere = t.elsewhere;
    text.push(say(meta, t.phrase, { pip: pip, last: last, name: t.name || t.what.split(".").pop(), modules: t.elsewhere.join(", ") }));
  }
  if (release !== null) {
    var at = releases.indexOf(release);
    if (at >= 0) {
      var has = ((t.has >> BigInt(at)) & 1n) === 1n;
      out.installed = { release: release, has: has };
      text.push(say(meta, has ? (index.pip ? "has" : "has_image") : "lacks", { pip: pip, release: release }));
    } else {
      out.installed = { release: release, has: null };
      text.push(say(meta, "unknown_release", { pip: pip, release: release }));
    }
  }
  out.text = { en: text.map(function (p) { return p.en; }).join(" "), zh: joinZh(text.map(function (p) { return p.zh; })) };
  return out;
}

// The drift answers of a text: one per line that states a missing name the index can speak to ([] when none, or
// when the drift data cannot be had). `wanted`: {project or package: release}, the version box's choice. The
// patterns run first (the lines' shapes, the frames' packages, remote code), then the shards are fetched (between
// `hooks.fetching()` and `hooks.fetched()`: the page's time limit waits for the network, not for a pattern), then
// the release patterns run for the answers.
async function driftAnswers(text, wanted, hooks) {
  var meta = await driftMeta();
  if (!meta) return [];
  var asks = driftAsks(text, meta);
  if (!asks.length) return [];
  var hints = new Set(), from = 0, m;
  while ((m = execute(meta.packageP, text, from)) !== null) { hints.add(m[1]); from = m.index + Math.max(m[0].length, 1); }
  var remote = execute(meta.remoteP, text, 0) !== null;
  if (hooks) hooks.fetching();
  var found = [];
  try {
    for (var i = 0; i < asks.length; i++) found.push(await driftTargets(meta, asks[i], hints));
  } finally {
    if (hooks) hooks.fetched();
  }
  var out = [];
  asks.forEach(function (ask, i) {
    if (!found[i].length) return;
    var candidates = found[i].slice(0, meta.max_candidates).map(function (t) {
      return describe(meta, t, installedRelease(meta, t.index, text, wanted || {}), remote);
    });
    var item = { line: ask.line, shape: ask.shape, candidates: candidates };
    if (found[i].length > 1) item.note = say(meta, "candidates", { n: found[i].length });
    out.push(item);
  });
  return out;
}
