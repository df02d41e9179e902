"""The catalog harvest: every error message a project's releases can raise, with the releases that have it.

Stages, one module each: `config` (data/catalog/projects.yaml), `fetch` (a release's published source into a
content-addressed cache), `extract_python` and `extract_tree_sitter` (error sites from syntax trees),
`templates` (a site's message -> id, portable pattern, tier), `catalog` (sites per release -> entries with
version ranges; the JSON Lines writer and reader), `stats` and `verify`.
"""
