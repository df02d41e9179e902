"""Finding known errors in a log: the engine (`engine`), its ranking rules (`rules`), where its patterns come
from (`index`), what it says (`output`) and how it reads a JSON log line (`logline`); and the regex tooling
the checks share with it: the subset RE2 and JavaScript agree on (`portable`, over `regextree`), the shapes
that backtrack slowly (`redos`) and a backtracking engine with JavaScript's semantics (`backtrack`).
"""
