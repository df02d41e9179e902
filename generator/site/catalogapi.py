"""The catalog's API files as openapi.json and manifest.json describe them (generator/site/catalogpages.py makes
the files): each route with an example cut from this build's files, and which files the manifest leaves out."""

from __future__ import annotations

import re

from .. import routes
from ..api.export import decode_file


def openapi_paths(files: dict[str, bytes]) -> dict[str, object]:
    """The catalog's routes for openapi.json, each with an example taken from this build's files."""
    def example(name: str, cut: tuple[str, ...] = (), by_key: bool = False) -> dict:
        """The first of the build's files at route `name`: lists under `cut` cut to two items, or, for a document
        of many keys (`by_key`: a drift shard, a registry), its first two keys."""
        pattern = re.escape(routes.api_path(name, "KEY", project="PROJECT")).replace("KEY", "(?!index)[^/]+").replace("PROJECT", "[^/]+")
        path = next((p for p in sorted(files) if re.fullmatch(pattern, p)), None)
        if path is None:
            return {}
        if path.endswith(".ndjson"):  # one entry a line: the first
            first = files[path].split(b"\n", 1)[0].decode("utf-8") + "\n"
            return {"examples": {"first": {"summary": f"GET {routes.API_ROOT}{path}, its first line", "value": first}}}
        value = decode_file(path, files[path])
        if by_key:
            value = dict(list(value.items())[:2])
            return {"examples": {"first": {"summary": f"GET {routes.API_ROOT}{path}, cut to its first two keys", "value": value}}}
        for key in cut:
            if isinstance(value.get(key), list):
                value[key] = value[key][:2]
        return {"examples": {"first": {"summary": f"GET {routes.API_ROOT}{path}, lists cut to two items", "value": value}}}

    def param(name: str, description: str) -> dict:
        return {"name": name, "in": "path", "required": True, "description": description, "schema": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"}}

    def get(op: str, summary: str, description: str, name: str, params: list, cut: tuple[str, ...] = (), by_key: bool = False) -> dict:
        route = routes.API[name]
        kind = "application/x-ndjson" if route.endswith(".ndjson") else "application/gzip" if route.endswith(".gz") else "application/json"
        schema = {"type": "object"} if kind == "application/json" else {"type": "string", "contentMediaType": kind}
        if kind == "application/gzip":  # a JSON document stored gzip-compressed (routes.API); the example is the document
            description += " Stored gzip-compressed (the file is the gzip stream, served as it is): inflate it, then read the JSON."
        media = {"schema": schema, **example(name, cut, by_key)}
        responses = {"200": {"description": summary, "content": {kind: media}}}
        if params:
            responses["404"] = {"description": "No such project, entry or release."}
        return {"get": {"operationId": op, "summary": summary, "description": description, "responses": responses, **({"parameters": params} if params else {})}}

    project = param("project", "A catalog project slug (catalog/index.json lists them), such as `vllm`.")
    return {
        "/" + routes.api_path("catalog_index"): get(
            "getCatalogIndex", "The catalog's projects",
            "Every project of the message catalog with its harvested releases (oldest first), its counts of entries, of "
            "user-facing entries and of entries a record explains, and the links to its index.", "catalog_index", []),
        "/" + routes.api_path("catalog_project", project="{project}"): get(
            "getCatalogProject", "One project's catalog",
            "The project's releases, its modules with counts, and every entry: template, exception, kind, level, tier, "
            "module, release ranges, newest raise site, the records that explain it, and the sha256 of its line in its "
            "entries file (the entries files are not in manifest.json).", "catalog_project", [project], ("modules", "entries", "releases")),
        "/" + routes.api_path("catalog_entries", "{shard}", project="{project}"): get(
            "getCatalogEntries", "The catalog entries whose hash starts with two hex digits",
            "Newline-delimited JSON, one entry per line in id order, each line ending in `\\n` (line separators inside text "
            "are escaped). Each line is everything the catalog knows of one message: template, pattern, every raise site "
            "per range of releases (with its address in that release's source when known), the release ranges, "
            "`gone_since`, other wordings (`variants`), the records that explain it, and when none does, how to start one "
            "(`new_record`). The entry `<project>/<hash>` is in the file named by the first two digits of `<hash>`.",
            "catalog_entries", [project, param("shard", "The first two hex digits of the entry id's part after `<project>/`.")]),
        "/" + routes.api_path("catalog_changes", "{release}", project="{project}"): get(
            "getCatalogChanges", "What changed in one release",
            "The entries added, removed and reworded (one wording replaced by another of the same message) since the "
            "release before; the count of entries raised from another line or file. One file per harvested release but "
            "the first.", "catalog_changes", [project, param("release", "A harvested release, as catalog/index.json spells it.")],
            ("added", "removed", "reworded")),
        "/" + routes.api_path("catalog_match_index"): get(
            "getCatalogMatchIndex", "The browser's catalog match index",
            "What the paste page reads first to match a log against the whole catalog: per shard, each key word (the "
            "rarest whole word of an entry's fixed text) with a piece of the fixed text around it; each project's "
            "releases; the traceback frame pattern. A paste's words name the shards to fetch.", "catalog_match_index", [], ("groups",)),
        "/" + routes.api_path("catalog_match_shard", "{shard}"): get(
            "getCatalogMatchShard", "One shard of the browser's catalog match data",
            "`m<n>`: per key word, the entries filed under it (JavaScript pattern, template, exception, ranking facts, "
            "release ranges as indices into the project's releases, raise sites, linked records); `t<n>`: per "
            "`file:line`, the raise sites there (for traceback frames).", "catalog_match_shard",
            [param("shard", "`m` or `t` and a number, as the match index names them.")]),
        "/" + routes.api_path("drift_index"): get(
            "getDriftIndex", "The browser's drift data: what answers are made of",
            "What the paste page reads to answer a line where Python says the installed release lacks a name (version "
            "drift): the line shapes, the phrases of an answer in each language, the patterns that read a log's "
            "packages, remote code and installed release, how an answer names each registry's keys, each project's pip "
            "name, packages, programs, releases and registries, and the number of shards the symbol indexes are filed in.", "drift_index", [], ("shapes",)),
        "/" + routes.api_path("drift_shard", "{shard}"): get(
            "getDriftShard", "One shard of the symbol indexes, filed by name",
            "Keys `m:<module>`, `c:<Class>`, `f:<function>` and `n:<name>` (a key's shard is crc32(key) modulo the "
            "index's `shards`), each with the projects' lines for that name: a module's releases, star imports and the "
            "names it binds; a class's attributes, methods with their parameters and bases; a function's parameters; "
            "the modules a name can be imported from in the newest release. Releases are ranges of indices into the "
            "project's releases, relative to the enclosing name's.", "drift_shard",
            [param("shard", "A number below the drift index's `shards`.")], by_key=True),
        "/" + routes.api_path("drift_registry", "{registry}", project="{project}"): get(
            "getDriftRegistry", "One project's registry: keys and their releases",
            "A registry users hit by key (transformers' model types and auto classes, vLLM's architectures, a server's "
            "flags, TGI's model types): each key "
            "with the ranges of releases that have it.", "drift_registry",
            [project, param("registry", "A registry the drift index lists for the project, such as `model_types`.")], by_key=True),
    }


# Left out of manifest.json: the entries files (each project's index lists the digest of each line), the
# browser's match shards (the match index names them) and its drift shards (2,048 of them, named by a hash).
UNLISTED = "|".join((re.escape(routes.api_path("catalog_entries", "KEY", project="PROJECT")).replace("KEY", "[0-9a-f]{2}").replace("PROJECT", "[^/]+"),
                     re.escape(routes.api_path("catalog_match_shard", "KEY")).replace("KEY", "[mt][0-9]+"),
                     re.escape(routes.api_path("drift_shard", "KEY")).replace("KEY", "[0-9]+")))
