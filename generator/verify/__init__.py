"""`errdex verify-sources`: each record's snippet against the real file at its pinned commit (`sources`), read
from a git mirror, the raw-file host or the release artifact (`artifacts`), which the package index lists
(`packageindex`).
"""
