"""`errdex mcp`: a Model Context Protocol server over the records (as the JSON API publishes them) and the catalog.

- `api.py`      where the records come from: data/errors, a built API folder, or a published site (cached)
- `catalog.py`  the harvested message catalog (data/catalog/*.jsonl, releases.json), read and queried
- `tools.py`    what each tool does, as functions from data to small JSON-ready results (no SDK here):
                `knowledge.py` (the loaded data, argument checks, paging), `matching.py`, `records.py`,
                `releases.py` and `outcome.py`
- `main.py`     `errdex mcp`: load, then serve
- `server.py`   the SDK wiring: tool schemas, the `errdex://errors/{id}` resources, stdio

Only server.py imports the `mcp` SDK, so the rest can be tested and benchmarked without it.
"""
