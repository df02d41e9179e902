"""`errdex mcp`: a Model Context Protocol server over the records (as the JSON API publishes them) and the catalog.

- `tools.py`    what each tool does, as functions from data to small JSON-ready results (no SDK here):
                `matching.py`, `records.py`, `releases.py` and `outcome.py`, over the loaded knowledge and the
                argument checks and paging of generator/bundle/knowledge.py
- `main.py`     `errdex mcp`: open the knowledge bundle (or load what --api and --catalog name), then serve
- `server.py`   the SDK wiring: tool schemas, the `errdex://errors/{id}` resources, stdio

Only server.py imports the `mcp` SDK, so the rest can be tested and benchmarked without it.
"""
