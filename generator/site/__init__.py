"""The site: `errdex build` (`build`: one mkdocs build per language, the API, feeds, search, the checks of the
output) and what it is made of: page Markdown (`render`, `templates/`, `markup`, `fixes`), facts of the
dataset (`facts`), feeds (`feeds`), the catalog's pages and API files (`catalogpages`, `catalogapi`, `frames`, `catalogbuild`), the
search index (`searchindex`, `searchtext`), the checks of a built site (`check`), the Markdown extension
for heading ids (`mdext`), and `errdex serve` (`serve`).
"""
